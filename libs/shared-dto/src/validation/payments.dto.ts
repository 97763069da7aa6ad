import { IsNumber, IsOptional, IsString, Matches, Max, MaxLength, Min } from 'class-validator';
import {
  CHECKOUT_SESSION_ID_PATTERN,
  PAYMENT_MAX_AMOUNT,
  PAYMENT_MIN_AMOUNT,
  type PaymentCheckoutCreateRequest,
  type PaymentRefundRequest,
  type PaymentVerifyQuery,
} from '../billing';
import { MaxDecimals } from './decimals';

/** POST /api/v1/payment/create-checkout-session (limits in docs/payments.md#card-top-ups). */
export class PaymentCheckoutCreateDto implements PaymentCheckoutCreateRequest {
  @IsNumber({ allowNaN: false, allowInfinity: false }, { message: 'amount must be a number with at most 2 decimals' })
  @MaxDecimals(2, { message: 'amount must be a number with at most 2 decimals' })
  @Min(PAYMENT_MIN_AMOUNT)
  @Max(PAYMENT_MAX_AMOUNT)
  amount: number;
}

/** POST /api/v1/payment/verify-and-capture?session_id=… */
export class PaymentVerifyQueryDto implements PaymentVerifyQuery {
  @IsString()
  @MaxLength(255)
  @Matches(CHECKOUT_SESSION_ID_PATTERN, { message: 'session_id must be a Checkout Session id (cs_…)' })
  session_id: string;
}

/** POST /api/v1/admin/payments/{id}/refund: at most what is left of the top-up (checked against the row). */
export class PaymentRefundDto implements PaymentRefundRequest {
  @IsOptional()
  @IsNumber({ allowNaN: false, allowInfinity: false }, { message: 'amount must be a number with at most 2 decimals' })
  @MaxDecimals(2, { message: 'amount must be a number with at most 2 decimals' })
  @Min(0.01)
  @Max(PAYMENT_MAX_AMOUNT)
  amount?: number;
}
