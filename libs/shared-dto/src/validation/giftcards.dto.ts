import { IsInt, IsISO8601, IsNumber, IsOptional, IsString, Max, MaxLength, Min, MinLength } from 'class-validator';
import {
  GIFT_CARD_CODE_MAX_LENGTH,
  GIFT_CARD_MAX_AMOUNT,
  GIFT_CARD_MAX_COUNT,
  type GiftCardIssueRequest,
  type GiftCardRedeemRequest,
} from '../giftcards';
import { MaxDecimals } from './decimals';

/** POST /api/v1/admin/giftcards (docs/decisions.md#resource-shapes). */
export class GiftCardIssueDto implements GiftCardIssueRequest {
  @IsNumber({ allowNaN: false, allowInfinity: false }, { message: 'amount must be a number with at most 2 decimals' })
  @MaxDecimals(2, { message: 'amount must be a number with at most 2 decimals' })
  @Min(0.01)
  @Max(GIFT_CARD_MAX_AMOUNT)
  amount: number;

  @IsInt()
  @Min(1)
  @Max(GIFT_CARD_MAX_COUNT)
  count: number;

  @IsOptional()
  @IsISO8601({ strict: true }, { message: 'expiresAt must be an ISO 8601 date or time such as 2027-01-31' })
  expiresAt?: string;
}

/** POST /api/v1/giftcard/redeem (docs/payments.md#gift-cards). Spaces, dashes and case do not matter. */
export class GiftCardRedeemDto implements GiftCardRedeemRequest {
  @IsString()
  @MinLength(1, { message: 'code must not be empty' })
  @MaxLength(GIFT_CARD_CODE_MAX_LENGTH)
  code: string;
}
