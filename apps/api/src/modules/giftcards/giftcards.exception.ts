import { AppException } from '../../common/errors/app.exception';

export enum GiftcardsErrorCode {
  GIFTCARD_NOT_FOUND = 'GIFTCARD_NOT_FOUND',
  GIFTCARD_ALREADY_REDEEMED = 'GIFTCARD_ALREADY_REDEEMED',
  GIFTCARD_EXPIRED = 'GIFTCARD_EXPIRED',
}

const STATUS: Record<GiftcardsErrorCode, number> = {
  // Unknown (or malformed) code: 404, like any missing resource (docs/payments.md).
  [GiftcardsErrorCode.GIFTCARD_NOT_FOUND]: 404,
  [GiftcardsErrorCode.GIFTCARD_ALREADY_REDEEMED]: 409,
  [GiftcardsErrorCode.GIFTCARD_EXPIRED]: 422,
};

export class GiftcardsException extends AppException {
  constructor(code: GiftcardsErrorCode, message: string) {
    super(code, STATUS[code], message);
  }
}
