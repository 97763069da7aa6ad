import { AppException } from '../../common/errors/app.exception';

export enum AdminErrorCode {
  USER_NOT_FOUND = 'USER_NOT_FOUND',
  ACCOUNT_DELETED = 'ACCOUNT_DELETED',
  CANNOT_DISABLE_SELF = 'CANNOT_DISABLE_SELF',
  INVALID_CURSOR = 'INVALID_CURSOR',
  INVALID_WINDOW = 'INVALID_WINDOW',
}

const STATUS: Record<AdminErrorCode, number> = {
  [AdminErrorCode.USER_NOT_FOUND]: 404,
  [AdminErrorCode.ACCOUNT_DELETED]: 409,
  [AdminErrorCode.CANNOT_DISABLE_SELF]: 400,
  [AdminErrorCode.INVALID_CURSOR]: 400,
  [AdminErrorCode.INVALID_WINDOW]: 400,
};

export class AdminException extends AppException {
  constructor(code: AdminErrorCode, message: string, field?: string) {
    super(code, STATUS[code], message, { details: field ? [{ field, messages: [message] }] : undefined });
  }
}
