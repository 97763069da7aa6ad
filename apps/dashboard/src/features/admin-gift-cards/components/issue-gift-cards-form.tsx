import { useId, useState } from 'react';
import type { FormEvent } from 'react';
import { GIFT_CARD_MAX_COUNT } from '@switchyard/shared-dto';
import type { GiftCardIssueResponse } from '@switchyard/shared-dto';

import { Button } from '../../../components/ui/button';
import { FormAlert } from '../../../components/ui/alert';
import { TextField } from '../../../components/ui/text-field';
import { toFormErrors } from '../../../lib/form-errors';
import { useIssueGiftCards } from '../api/issue-gift-cards';
import { IssuedCodesPanel } from './issued-codes-panel';

const FIELDS = ['amount', 'count', 'expiresAt'] as const;

/** Issues gift cards and shows their codes once. The codes live in this component's state and nowhere else. */
export function IssueGiftCardsForm() {
  const headingId = useId();
  const [amount, setAmount] = useState('10');
  const [count, setCount] = useState('1');
  const [expiresOn, setExpiresOn] = useState('');
  const [issued, setIssued] = useState<GiftCardIssueResponse | null>(null);
  const issue = useIssueGiftCards();
  const errors = toFormErrors(issue.error, FIELDS);

  const handleSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setIssued(null);
    // Numbers as typed: the server checks them (and says which field is wrong).
    issue.mutate(
      { amount: Number(amount), count: Number(count), ...(expiresOn ? { expiresAt: expiresOn } : {}) },
      {
        onSuccess: (result) => {
          setIssued(result);
          issue.reset();
        },
      },
    );
  };

  return (
    <section className="card" aria-labelledby={headingId}>
      <h2 id={headingId} className="card-title">
        Issue gift cards
      </h2>
      <form className="key-form" onSubmit={handleSubmit} noValidate aria-labelledby={headingId}>
        <FormAlert messages={errors.general} />
        <TextField
          label="Amount per card (USD)"
          type="text"
          inputMode="decimal"
          name="amount"
          autoComplete="off"
          required
          value={amount}
          onChange={(event) => setAmount(event.target.value)}
          errors={errors.fields.amount}
        />
        <TextField
          label="Number of cards"
          hint={`Up to ${GIFT_CARD_MAX_COUNT} at once.`}
          type="number"
          min={1}
          max={GIFT_CARD_MAX_COUNT}
          name="count"
          required
          value={count}
          onChange={(event) => setCount(event.target.value)}
          errors={errors.fields.count}
        />
        <TextField
          label="Valid through (optional)"
          hint="The cards expire when this day ends (UTC). Leave empty for cards that never expire."
          type="date"
          name="expiresAt"
          value={expiresOn}
          onChange={(event) => setExpiresOn(event.target.value)}
          errors={errors.fields.expiresAt}
        />
        <Button type="submit" busy={issue.isPending}>
          Issue gift cards
        </Button>
      </form>
      {issued ? <IssuedCodesPanel issued={issued} onDone={() => setIssued(null)} /> : null}
    </section>
  );
}
