import { IsNumber, IsString, Matches, Max, MaxLength, Min } from 'class-validator';
import { PAYMENT_MAX_AMOUNT, PAYMENT_MIN_AMOUNT } from '../billing';
import { MaxDecimals } from './decimals';

/** POST /api/v1/payment/create-checkout-session (limits in docs/payments.md#card-top-ups). */
export class PaymentCheckoutCreateDto {
  @IsNumber({ allowNaN: false, allowInfinity: false }, { message: 'amount must be a number with at most 2 decimals' })
  @MaxDecimals(2, { message: 'amount must be a number with at most 2 decimals' })
  @Min(PAYMENT_MIN_AMOUNT)
  @Max(PAYMENT_MAX_AMOUNT)
  amount: number;
}

/** Checkout Session ids: Stripe's `cs_test_…`/`cs_live_…`, or the sandbox's `cs_sandbox_…`. */
export const CHECKOUT_SESSION_ID_PATTERN = /^cs_[A-Za-z0-9_]{1,250}$/;

/** POST /api/v1/payment/verify-and-capture?session_id=… */
export class PaymentVerifyQueryDto {
  @IsString()
  @MaxLength(255)
  @Matches(CHECKOUT_SESSION_ID_PATTERN, { message: 'session_id must be a Checkout Session id (cs_…)' })
  session_id: string;
}
