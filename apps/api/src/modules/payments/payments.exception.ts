import { AppException } from '../../common/errors/app.exception';

export enum PaymentsErrorCode {
  PAYMENT_NOT_FOUND = 'PAYMENT_NOT_FOUND',
  PAYMENT_SESSION_EXPIRED = 'PAYMENT_SESSION_EXPIRED',
  PAYMENT_PROVIDER_ERROR = 'PAYMENT_PROVIDER_ERROR',
  PAYMENT_WEBHOOK_SIGNATURE_INVALID = 'PAYMENT_WEBHOOK_SIGNATURE_INVALID',
  PAYMENT_WEBHOOK_NOT_CONFIGURED = 'PAYMENT_WEBHOOK_NOT_CONFIGURED',
  PAYMENT_NOT_REFUNDABLE = 'PAYMENT_NOT_REFUNDABLE',
}

const STATUS: Record<PaymentsErrorCode, number> = {
  // Also for another user's session: ids of other users' payments cannot be probed.
  [PaymentsErrorCode.PAYMENT_NOT_FOUND]: 404,
  [PaymentsErrorCode.PAYMENT_SESSION_EXPIRED]: 422,
  [PaymentsErrorCode.PAYMENT_PROVIDER_ERROR]: 502,
  [PaymentsErrorCode.PAYMENT_WEBHOOK_SIGNATURE_INVALID]: 400,
  [PaymentsErrorCode.PAYMENT_WEBHOOK_NOT_CONFIGURED]: 503,
  // Never paid, or the amount is above what is left of it.
  [PaymentsErrorCode.PAYMENT_NOT_REFUNDABLE]: 409,
};

export class PaymentsException extends AppException {
  constructor(code: PaymentsErrorCode, message: string) {
    super(code, STATUS[code], message);
  }
}
