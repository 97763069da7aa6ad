import { AppException } from '../../common/errors/app.exception';

export enum SpacesErrorCode {
  HANDLE_TAKEN = 'HANDLE_TAKEN',
  SPACE_HANDLE_REQUIRED = 'SPACE_HANDLE_REQUIRED',
  SPACE_PROFILE_NOT_FOUND = 'SPACE_PROFILE_NOT_FOUND',
  SPACE_APP_NOT_FOUND = 'SPACE_APP_NOT_FOUND',
  SPACE_APP_BUSY = 'SPACE_APP_BUSY',
  SPACE_APP_NOT_READY = 'SPACE_APP_NOT_READY',
  SPACE_NOTHING_TO_UNDO = 'SPACE_NOTHING_TO_UNDO',
  SPACE_MODEL_UNSUPPORTED = 'SPACE_MODEL_UNSUPPORTED',
  SPACE_NO_MODEL = 'SPACE_NO_MODEL',
  SPACE_APP_LIMIT_REACHED = 'SPACE_APP_LIMIT_REACHED',
  SPACE_TOO_MANY_JOBS = 'SPACE_TOO_MANY_JOBS',
  SPACE_ADDRESS_TOO_LONG = 'SPACE_ADDRESS_TOO_LONG',
  SPACE_REMIX_NOT_FOUND = 'SPACE_REMIX_NOT_FOUND',
}

const STATUS: Record<SpacesErrorCode, number> = {
  [SpacesErrorCode.HANDLE_TAKEN]: 409,
  [SpacesErrorCode.SPACE_HANDLE_REQUIRED]: 422,
  [SpacesErrorCode.SPACE_PROFILE_NOT_FOUND]: 404,
  [SpacesErrorCode.SPACE_APP_NOT_FOUND]: 404,
  [SpacesErrorCode.SPACE_APP_BUSY]: 409,
  [SpacesErrorCode.SPACE_APP_NOT_READY]: 409,
  [SpacesErrorCode.SPACE_NOTHING_TO_UNDO]: 409,
  [SpacesErrorCode.SPACE_MODEL_UNSUPPORTED]: 400,
  [SpacesErrorCode.SPACE_NO_MODEL]: 422,
  [SpacesErrorCode.SPACE_APP_LIMIT_REACHED]: 422,
  [SpacesErrorCode.SPACE_TOO_MANY_JOBS]: 429,
  [SpacesErrorCode.SPACE_ADDRESS_TOO_LONG]: 422,
  [SpacesErrorCode.SPACE_REMIX_NOT_FOUND]: 404,
};

export class SpacesException extends AppException {
  constructor(code: SpacesErrorCode, message: string, field?: string) {
    super(code, STATUS[code], message, field ? { details: [{ field, messages: [message] }] } : {});
  }
}
