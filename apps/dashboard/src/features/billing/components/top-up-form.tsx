import { useId, useState } from 'react';
import type { FormEvent } from 'react';
import { PAYMENT_MAX_AMOUNT, PAYMENT_MIN_AMOUNT } from '@switchyard/shared-dto';

import { Button } from '../../../components/ui/button';
import { FormAlert } from '../../../components/ui/alert';
import { TextField } from '../../../components/ui/text-field';
import { toFormErrors } from '../../../lib/form-errors';
import { formatMoney } from '../../../lib/money';
import { useCreateCheckoutSession } from '../api/create-checkout-session';

const FIELDS = ['amount'] as const;
const RANGE_MESSAGE = `Enter an amount from ${formatMoney(PAYMENT_MIN_AMOUNT)} to ${formatMoney(PAYMENT_MAX_AMOUNT)}, in whole cents.`;

/** crypto.randomUUID needs a secure context; getRandomValues works on plain http too. */
function newIdempotencyKey(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return `topup-${Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('')}`;
}

function parseAmount(text: string): number | null {
  if (!/^\d+(\.\d{1,2})?$/.test(text.trim())) return null;
  const amount = Number(text);
  return amount >= PAYMENT_MIN_AMOUNT && amount <= PAYMENT_MAX_AMOUNT ? amount : null;
}

/** Starts a card top-up: a checkout session, then the checkout page (Stripe's, or the local sandbox). */
export function TopUpForm() {
  const headingId = useId();
  const [amount, setAmount] = useState('10');
  const [invalid, setInvalid] = useState(false);
  const [leaving, setLeaving] = useState(false);
  const checkout = useCreateCheckoutSession();
  const errors = toFormErrors(checkout.error, FIELDS);
  const amountErrors = invalid ? [RANGE_MESSAGE] : errors.fields.amount;

  const handleSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const value = parseAmount(amount);
    setInvalid(value === null);
    if (value === null) return;
    checkout.mutate(
      { amount: value, idempotencyKey: newIdempotencyKey() },
      {
        onSuccess: (session) => {
          setLeaving(true);
          window.location.assign(session.checkoutUrl);
        },
      },
    );
  };

  return (
    <section className="card" aria-labelledby={headingId}>
      <h2 id={headingId} className="card-title">
        Add funds by card
      </h2>
      <form className="key-form" onSubmit={handleSubmit} noValidate aria-labelledby={headingId}>
        <FormAlert messages={errors.general} />
        <TextField
          label="Amount (USD)"
          hint={`From ${formatMoney(PAYMENT_MIN_AMOUNT)} to ${formatMoney(PAYMENT_MAX_AMOUNT)}. You pay on the next page.`}
          type="text"
          inputMode="decimal"
          name="amount"
          autoComplete="off"
          required
          value={amount}
          onChange={(event) => {
            setAmount(event.target.value);
            setInvalid(false);
          }}
          errors={amountErrors}
        />
        <Button type="submit" busy={checkout.isPending || leaving}>
          Add funds
        </Button>
      </form>
    </section>
  );
}
