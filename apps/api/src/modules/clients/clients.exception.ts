import { AppException } from '../../common/errors/app.exception';

export enum ClientsErrorCode {
  CLIENT_NOT_FOUND = 'CLIENT_NOT_FOUND',
  CLIENT_LIMIT_REACHED = 'CLIENT_LIMIT_REACHED',
  REDIRECT_URI_REQUIRED = 'REDIRECT_URI_REQUIRED',
  INVALID_DATE_RANGE = 'INVALID_DATE_RANGE',
  CLIENT_NAME_RESERVED = 'CLIENT_NAME_RESERVED',
  CLIENT_NOT_TRUSTABLE = 'CLIENT_NOT_TRUSTABLE',
  CLIENT_HAS_NO_SECRET = 'CLIENT_HAS_NO_SECRET',
}

const STATUS: Record<ClientsErrorCode, number> = {
  [ClientsErrorCode.CLIENT_NOT_FOUND]: 404,
  [ClientsErrorCode.CLIENT_LIMIT_REACHED]: 422,
  [ClientsErrorCode.REDIRECT_URI_REQUIRED]: 400,
  [ClientsErrorCode.INVALID_DATE_RANGE]: 400,
  [ClientsErrorCode.CLIENT_NAME_RESERVED]: 400,
  [ClientsErrorCode.CLIENT_NOT_TRUSTABLE]: 400,
  [ClientsErrorCode.CLIENT_HAS_NO_SECRET]: 400,
};

export class ClientsException extends AppException {
  constructor(code: ClientsErrorCode, message: string, field?: string) {
    super(code, STATUS[code], message, field ? { details: [{ field, messages: [message] }] } : {});
  }
}
