import { AppException } from '../../common/errors/app.exception';

export enum UsageErrorCode {
  BUDGET_EXHAUSTED = 'BUDGET_EXHAUSTED',
  INVALID_CURSOR = 'INVALID_CURSOR',
}

const STATUS: Record<UsageErrorCode, number> = {
  [UsageErrorCode.BUDGET_EXHAUSTED]: 403,
  [UsageErrorCode.INVALID_CURSOR]: 400,
};

export class UsageException extends AppException {
  constructor(code: UsageErrorCode, message: string, extra?: Record<string, unknown>) {
    super(code, STATUS[code], message, { extra });
  }
}
