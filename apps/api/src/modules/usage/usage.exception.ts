import { AppException } from '../../common/errors/app.exception';

export enum UsageErrorCode {
  BUDGET_EXHAUSTED = 'BUDGET_EXHAUSTED',
  SPEND_LIMIT_EXCEEDED = 'SPEND_LIMIT_EXCEEDED',
  INVALID_CURSOR = 'INVALID_CURSOR',
  ADJUSTMENT_EXCEEDS_BALANCE = 'ADJUSTMENT_EXCEEDS_BALANCE',
  ADJUSTMENT_KEY_REUSED = 'ADJUSTMENT_KEY_REUSED',
  SPONSOR_POOL_NOT_FOUND = 'SPONSOR_POOL_NOT_FOUND',
  SPONSOR_POOL_INCOMPLETE = 'SPONSOR_POOL_INCOMPLETE',
  SPONSOR_ENDS_AT_PAST = 'SPONSOR_ENDS_AT_PAST',
  SPONSOR_BALANCE_TOO_LOW = 'SPONSOR_BALANCE_TOO_LOW',
}

const STATUS: Record<UsageErrorCode, number> = {
  [UsageErrorCode.BUDGET_EXHAUSTED]: 403,
  // 403 like budget_exhausted (a permission, not a rate): the key or app may not spend more in this window.
  [UsageErrorCode.SPEND_LIMIT_EXCEEDED]: 403,
  [UsageErrorCode.INVALID_CURSOR]: 400,
  [UsageErrorCode.ADJUSTMENT_EXCEEDS_BALANCE]: 409,
  [UsageErrorCode.ADJUSTMENT_KEY_REUSED]: 409,
  // Sponsored credits (docs/earnings.md): withdrawing from an app that never had a pool.
  [UsageErrorCode.SPONSOR_POOL_NOT_FOUND]: 404,
  // A first funding needs an amount above 0 and an allowance per user.
  [UsageErrorCode.SPONSOR_POOL_INCOMPLETE]: 400,
  [UsageErrorCode.SPONSOR_ENDS_AT_PAST]: 400,
  // The maker's free balance (credits − debits − holds) cannot pay the amount: nothing moves.
  [UsageErrorCode.SPONSOR_BALANCE_TOO_LOW]: 409,
};

export class UsageException extends AppException {
  constructor(code: UsageErrorCode, message: string, extra?: Record<string, unknown>) {
    super(code, STATUS[code], message, { extra });
  }
}
