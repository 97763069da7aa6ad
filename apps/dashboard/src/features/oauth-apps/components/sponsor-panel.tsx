import { useState } from 'react';
import type { FormEvent } from 'react';
import type { OAuthClientResponse, SponsorPoolResponse } from '@switchyard/shared-dto';

import { FormAlert } from '../../../components/ui/alert';
import { Button } from '../../../components/ui/button';
import { TextField } from '../../../components/ui/text-field';
import { toFormErrors } from '../../../lib/form-errors';
import { formatMoney, parseCapInput } from '../../../lib/money';
import { useSponsorPool, useUpdateSponsorPool, useWithdrawSponsorPool } from '../api/sponsor-pool';

const STATUS: Record<SponsorPoolResponse['status'], string> = {
  none: 'Not funded',
  open: 'Open: new users get the allowance',
  ended: 'Ended: no more draws',
  withdrawn: 'Withdrawn: no more draws',
};

/**
 * Sponsored credits (docs/earnings.md): the maker pays for their users' calls through the app, up to an allowance
 * per user who approves the app from now on, out of a pool funded from the maker's balance.
 */
export function SponsorPanel({ app, onSaved }: { app: OAuthClientResponse; onSaved: (message: string) => void }) {
  const pool = useSponsorPool(app.clientId);
  const update = useUpdateSponsorPool(app.clientId);
  const withdraw = useWithdrawSponsorPool(app.clientId);
  const [amount, setAmount] = useState('');
  const [allowance, setAllowance] = useState<string | null>(null);
  const [endsAt, setEndsAt] = useState<string | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const serverErrors = toFormErrors(update.error ?? withdraw.error, ['amount', 'allowancePerUser', 'endsAt'] as const);
  if (pool.isPending) return <p className="muted">Loading the sponsor pool…</p>;
  if (pool.isError) return <FormAlert messages={[pool.error.message]} />;
  const data = pool.data;
  const allowanceValue = allowance ?? (data.allowancePerUser === null ? '' : String(data.allowancePerUser));
  const endsAtValue = endsAt ?? (data.endsAt ? data.endsAt.slice(0, 10) : '');

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const add = parseCapInput(amount);
    const each = parseCapInput(allowanceValue);
    if (!add.ok || !each.ok) return setProblem(!add.ok ? add.problem : (each as { problem: string }).problem);
    if (each.value === null || each.value <= 0) return setProblem('Set an allowance per user above 0.');
    setProblem(null);
    update.mutate(
      { amount: add.value ?? 0, allowancePerUser: each.value, endsAt: endsAtValue === '' ? null : endsAtValue },
      {
        onSuccess: (saved) => {
          setAmount('');
          onSaved(`The sponsor pool of ${app.clientName} has ${formatMoney(saved.left)} left.`);
        },
      },
    );
  };

  return (
    <section className="stack sponsor-panel" aria-label={`Sponsored credits of ${app.clientName}`}>
      <dl className="details" data-testid="sponsor-figures">
        <div>
          <dt>Sponsor pool</dt>
          <dd>{STATUS[data.status]}</dd>
        </div>
        <div>
          <dt>Left</dt>
          <dd>{formatMoney(data.left)}</dd>
        </div>
        <div>
          <dt>Paid for users</dt>
          <dd>
            {formatMoney(data.drawn)} ({data.users} user{data.users === 1 ? '' : 's'} with an allowance)
          </dd>
        </div>
        <div>
          <dt>Funded / taken back</dt>
          <dd>
            {formatMoney(data.funded)} / {formatMoney(data.takenBack)}
          </dd>
        </div>
      </dl>
      <form className="stack" onSubmit={submit} noValidate aria-label={`Fund the pool of ${app.clientName}`}>
        <div className="filter-row">
          <TextField
            label="Add to the pool ($)"
            name="amount"
            inputMode="decimal"
            hint="From your balance. Move available earnings to your budget first to fund from them."
            value={amount}
            errors={serverErrors.fields.amount}
            onChange={(event) => setAmount(event.target.value)}
          />
          <TextField
            label="Allowance per new user ($)"
            name="allowancePerUser"
            inputMode="decimal"
            hint="What the app pays of each user who approves it from now on."
            value={allowanceValue}
            errors={serverErrors.fields.allowancePerUser}
            onChange={(event) => setAllowance(event.target.value)}
          />
          <TextField
            label="Ends on (optional)"
            name="endsAt"
            type="date"
            value={endsAtValue}
            errors={serverErrors.fields.endsAt}
            onChange={(event) => setEndsAt(event.target.value)}
          />
        </div>
        <div className="app-card-actions">
          <Button type="submit" variant="secondary" busy={update.isPending}>
            Save sponsor pool
          </Button>
          {data.status !== 'none' && data.left > 0 ? (
            <Button
              variant="secondary"
              busy={withdraw.isPending}
              onClick={() =>
                withdraw.mutate(undefined, {
                  onSuccess: (result) =>
                    onSaved(`${formatMoney(result.takenBack)} went back into your balance; the pool is closed.`),
                })
              }
            >
              Take back what is left
            </Button>
          ) : null}
        </div>
      </form>
      <FormAlert messages={problem ? [problem] : serverErrors.general} />
    </section>
  );
}
