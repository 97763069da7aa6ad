import { AppException } from '../../common/errors/app.exception';

export enum KeysErrorCode {
  KEY_NOT_FOUND = 'KEY_NOT_FOUND',
  KEY_LIMIT_REACHED = 'KEY_LIMIT_REACHED',
}

const STATUS: Record<KeysErrorCode, number> = {
  [KeysErrorCode.KEY_NOT_FOUND]: 404,
  [KeysErrorCode.KEY_LIMIT_REACHED]: 422,
};

export class KeysException extends AppException {
  constructor(code: KeysErrorCode, message: string) {
    super(code, STATUS[code], message);
  }
}
