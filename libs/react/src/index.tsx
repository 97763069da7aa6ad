export {
  SwitchyardProvider,
  type SwitchyardContextValue,
  type SwitchyardProviderProps,
  useSwitchyard,
} from './provider.js';
export {
  BalanceBadge,
  formatMoney,
  SignInButton,
  type SignInButtonProps,
  TopUpButton,
  type TopUpButtonProps,
} from './components.js';
