import { useId, useState } from 'react';
import type { FormEvent } from 'react';
import type { AdminUser } from '@switchyard/shared-dto';

import { Alert } from '../../../components/ui/alert';
import { Button } from '../../../components/ui/button';
import { FormattedDate } from '../../../components/ui/formatted-date';
import { TextField } from '../../../components/ui/text-field';
import { formatMoney } from '../../../lib/money';
import { useAdjustBalance, useSetDisabled } from '../api/console';
import { newIdempotencyKey, parseAdjustment } from '../lib/idempotency-key';
import { AuditTable } from './audit-panel';

/** A credit or debit through the ledger, with a reason; one idempotency key per submission until it succeeds. */
function AdjustForm({ user }: { user: AdminUser }) {
  const [amount, setAmount] = useState('');
  const [reason, setReason] = useState('');
  const [key, setKey] = useState(newIdempotencyKey);
  const [problem, setProblem] = useState<string | null>(null);
  const [done, setDone] = useState('');
  const adjust = useAdjustBalance(user.id);

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setDone('');
    adjust.reset();
    const parsed = parseAdjustment(amount);
    if (!parsed.ok) return setProblem(parsed.problem);
    if (reason.trim().length < 3) return setProblem('Say why, in a few words: it goes to the audit log.');
    setProblem(null);
    adjust.mutate(
      { amount: parsed.value, reason: reason.trim(), idempotencyKey: key },
      {
        onSuccess: (result) => {
          setAmount('');
          setReason('');
          setKey(newIdempotencyKey());
          setDone(
            `${result.amount > 0 ? 'Credited' : 'Debited'} ${formatMoney(Math.abs(result.amount))}. The balance is now ${formatMoney(result.user.balance)}.`,
          );
        },
      },
    );
  };

  return (
    <form
      className="stack console-form"
      onSubmit={submit}
      noValidate
      aria-label={`Adjust the balance of ${user.email}`}
    >
      <h3 className="subheading">Adjust the balance</h3>
      <div className="console-form-row">
        <TextField
          label="Amount"
          hint="Positive adds, negative takes away (never below zero)."
          inputMode="decimal"
          value={amount}
          onChange={(event) => setAmount(event.target.value)}
        />
        <TextField label="Reason" maxLength={500} value={reason} onChange={(event) => setReason(event.target.value)} />
      </div>
      {problem ? (
        <p className="field-errors" role="alert">
          {problem}
        </p>
      ) : null}
      {adjust.isError ? <Alert>{adjust.error.message}</Alert> : null}
      <div>
        <Button type="submit" busy={adjust.isPending} disabled={user.status === 'deleted'}>
          Adjust
        </Button>
      </div>
      <p role="status" className="muted small">
        {done}
      </p>
    </form>
  );
}

/** Disabling (and enabling again), with a reason for the audit log. */
function StatusForm({ user, self }: { user: AdminUser; self: boolean }) {
  const [reason, setReason] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const change = useSetDisabled(user.id);
  const disabling = user.status === 'active';

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    change.reset();
    if (reason.trim().length < 3) return setProblem('Say why, in a few words: it goes to the audit log.');
    setProblem(null);
    change.mutate({ disabled: disabling, reason: reason.trim() }, { onSuccess: () => setReason('') });
  };

  if (user.status === 'deleted') return <p className="muted">The account was deleted: nothing can change.</p>;
  if (self && disabling) return <p className="muted">This is your own account: another admin can disable it.</p>;
  return (
    <form
      className="stack console-form"
      onSubmit={submit}
      noValidate
      aria-label={`${disabling ? 'Disable' : 'Enable'} ${user.email}`}
    >
      <h3 className="subheading">{disabling ? 'Disable the account' : 'Enable the account again'}</h3>
      <p className="muted small">
        {disabling
          ? 'It is signed out everywhere and cannot sign in; its API keys and the apps it authorized stop at once. Nothing is deleted.'
          : 'It can sign in again, and its keys and apps work again.'}
      </p>
      <TextField label="Reason" maxLength={500} value={reason} onChange={(event) => setReason(event.target.value)} />
      {problem ? (
        <p className="field-errors" role="alert">
          {problem}
        </p>
      ) : null}
      {change.isError ? <Alert>{change.error.message}</Alert> : null}
      <div>
        <Button type="submit" variant={disabling ? 'danger' : 'secondary'} busy={change.isPending}>
          {disabling ? 'Disable' : 'Enable'}
        </Button>
      </div>
    </form>
  );
}

/** One account: its figures, the actions, and what admins did to it. */
export function UserDetail({ user, self, onClose }: { user: AdminUser; self: boolean; onClose: () => void }) {
  const headingId = useId();
  return (
    <section className="card stack console-detail" aria-labelledby={headingId}>
      <div className="card-heading-row">
        <h3 id={headingId} className="card-title">
          {user.email}
        </h3>
        <Button variant="secondary" onClick={onClose}>
          Close
        </Button>
      </div>
      <dl className="details">
        <div>
          <dt>Account id</dt>
          <dd className="mono">{user.id}</dd>
        </div>
        <div>
          <dt>Created</dt>
          <dd>
            <FormattedDate iso={user.createdAt} format="dateTime" />
          </dd>
        </div>
        <div>
          <dt>Address</dt>
          <dd>{user.emailVerified ? 'Verified' : 'Not verified'}</dd>
        </div>
        <div>
          <dt>Balance</dt>
          <dd>
            {formatMoney(user.balance)}
            {user.reserved ? ` (${formatMoney(user.reserved)} held by calls in flight)` : ''}
          </dd>
        </div>
        <div>
          <dt>Credited in all</dt>
          <dd>{formatMoney(user.credits)}</dd>
        </div>
        <div>
          <dt>Debited in all</dt>
          <dd>{formatMoney(user.debits)}</dd>
        </div>
      </dl>
      <AdjustForm user={user} />
      <StatusForm user={user} self={self} />
      <h3 className="subheading">What admins did to this account</h3>
      <AuditTable userId={user.id} />
    </section>
  );
}
