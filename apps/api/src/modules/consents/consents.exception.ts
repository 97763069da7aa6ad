import { AppException } from '../../common/errors/app.exception';

export enum ConsentsErrorCode {
  CONSENT_NOT_FOUND = 'CONSENT_NOT_FOUND',
}

const STATUS: Record<ConsentsErrorCode, number> = {
  [ConsentsErrorCode.CONSENT_NOT_FOUND]: 404,
};

export class ConsentsException extends AppException {
  constructor(code: ConsentsErrorCode, message: string) {
    super(code, STATUS[code], message);
  }
}
