import { useId, useState } from 'react';
import type { FormEvent } from 'react';
import { GIFT_CARD_CODE_MAX_LENGTH } from '@switchyard/shared-dto';
import type { GiftCardRedeemResponse } from '@switchyard/shared-dto';

import { Alert } from '../../../components/ui/alert';
import { Button } from '../../../components/ui/button';
import { FormAlert } from '../../../components/ui/alert';
import { TextField } from '../../../components/ui/text-field';
import { toFormErrors } from '../../../lib/form-errors';
import { formatMoney } from '../../../lib/money';
import { useRedeemGiftCard } from '../api/redeem-gift-card';

const FIELDS = ['code'] as const;

/** Redeems a gift card code into the balance. The server says why a code is refused (unknown, used, expired). */
export function RedeemGiftCardForm({ onRedeemed }: { onRedeemed?: (result: GiftCardRedeemResponse) => void } = {}) {
  const headingId = useId();
  const [code, setCode] = useState('');
  const [redeemed, setRedeemed] = useState<GiftCardRedeemResponse | null>(null);
  const redeem = useRedeemGiftCard();
  const errors = toFormErrors(redeem.error, FIELDS);

  const handleSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setRedeemed(null);
    redeem.mutate(code.trim(), {
      onSuccess: (result) => {
        setRedeemed(result);
        setCode('');
        onRedeemed?.(result);
      },
    });
  };

  return (
    <section className="card" aria-labelledby={headingId}>
      <h2 id={headingId} className="card-title">
        Redeem a gift card
      </h2>
      <form className="key-form" onSubmit={handleSubmit} noValidate aria-labelledby={headingId}>
        <FormAlert messages={errors.general} />
        {redeemed ? (
          <Alert tone="info">
            <p>
              Gift card redeemed: {formatMoney(redeemed.amountAdded)} added. Your balance is now{' '}
              {formatMoney(redeemed.newBalance)}.
            </p>
          </Alert>
        ) : null}
        <TextField
          label="Gift card code"
          hint="Such as SYGC-7K3M-Q9XA-2D4F-H8RT. Case, spaces and dashes do not matter."
          type="text"
          name="code"
          autoComplete="off"
          spellCheck={false}
          required
          maxLength={GIFT_CARD_CODE_MAX_LENGTH}
          className="field-input mono"
          value={code}
          onChange={(event) => setCode(event.target.value)}
          errors={errors.fields.code}
        />
        <Button type="submit" busy={redeem.isPending} disabled={!code.trim()}>
          Redeem
        </Button>
      </form>
    </section>
  );
}
