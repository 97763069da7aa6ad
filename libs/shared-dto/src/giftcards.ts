/** Gift cards: issued by an admin, redeemed by a user into their balance. */

export interface GiftCardRedeemResponse {
  success: boolean;
  message: string;
  amountAdded: number;
  newBalance: number;
}

/** Gift cards an admin may issue at once, and the value of one (currency units). */
export const GIFT_CARD_MAX_COUNT = 500;
export const GIFT_CARD_MAX_AMOUNT = 10_000;

/** POST /api/v1/admin/giftcards */
export interface GiftCardIssueRequest {
  amount: number;
  count: number;
  /** ISO 8601; unset: the cards never expire. */
  expiresAt?: string;
}

/** The codes, shown in this answer only: only their hashes are stored. */
export interface GiftCardIssueResponse {
  amount: number;
  expiresAt: string | null;
  cards: { id: string; code: string }[];
}

export const GIFT_CARD_CODE_MAX_LENGTH = 64;

/** POST /api/v1/giftcard/redeem. Spaces, dashes and case do not matter. */
export interface GiftCardRedeemRequest {
  code: string;
}
