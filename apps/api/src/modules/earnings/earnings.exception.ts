import { AppException } from '../../common/errors/app.exception';

export enum EarningsErrorCode {
  PAYOUT_ACCOUNT_MISSING = 'PAYOUT_ACCOUNT_MISSING',
  PAYOUT_PENDING = 'PAYOUT_PENDING',
}

const STATUS: Record<EarningsErrorCode, number> = {
  // Payouts need a linked account first (POST /api/v1/earnings/connect).
  [EarningsErrorCode.PAYOUT_ACCOUNT_MISSING]: 409,
  // Stripe did not answer: the payout stays pending and is sent again, with the same idempotency key.
  [EarningsErrorCode.PAYOUT_PENDING]: 502,
};

export class EarningsException extends AppException {
  constructor(code: EarningsErrorCode, message: string) {
    super(code, STATUS[code], message);
  }
}
