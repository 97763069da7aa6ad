export {
  createSwitchyard,
  type AppCaps,
  type Balance,
  type ClientOptions,
  type Switchyard,
  type SwitchyardOptions,
  type SwitchyardState,
  type SwitchyardStatus,
  type SwitchyardUser,
} from './client.js';
export {
  AuthorizationError,
  BudgetExhaustedError,
  errorFromBody,
  type LimitKind,
  NotSignedInError,
  PopupError,
  SwitchyardError,
  toSwitchyardError,
} from './errors.js';
export { POPUP_NAME, type PopupMessage } from './popup.js';
export { memoryStorage, type StorageLike, type StorageOption } from './storage.js';
