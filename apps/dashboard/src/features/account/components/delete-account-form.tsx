import { useId, useState } from 'react';
import type { FormEvent } from 'react';
import { PASSWORD_MAX_LENGTH } from '@switchyard/shared-dto';

import { FormAlert } from '../../../components/ui/alert';
import { Button } from '../../../components/ui/button';
import { CheckboxField } from '../../../components/ui/checkbox-field';
import { TextField } from '../../../components/ui/text-field';
import { toFormErrors } from '../../../lib/form-errors';
import { useDeleteAccount } from '../api/account';

/** Deletes the account, confirmed by its password and a tick; what goes and what stays is said first. */
export function DeleteAccountForm({ onDeleted }: { onDeleted: () => void }) {
  const headingId = useId();
  const [password, setPassword] = useState('');
  const [understood, setUnderstood] = useState(false);
  const [clientErrors, setClientErrors] = useState<string[] | null>(null);
  const mutation = useDeleteAccount(onDeleted);
  const errors = toFormErrors(mutation.error, ['password'] as const);

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    mutation.reset();
    const problems = [
      ...(password ? [] : ['Enter your password to confirm.']),
      ...(understood ? [] : ['Tick the box to confirm that you want the account gone.']),
    ];
    if (problems.length) {
      setClientErrors(problems);
      return;
    }
    setClientErrors(null);
    mutation.mutate({ password });
  };

  return (
    <section className="card stack" aria-labelledby={headingId}>
      <h2 id={headingId} className="card-title">
        Delete the account
      </h2>
      <p>
        You will not be able to sign in again. At once, every API key (the Dashboard key too) is revoked, every app you
        authorized loses its access and its tokens, your space apps are unpublished and you are signed out everywhere.
        Your name and email are removed. What the ledger needs for accounting stays, under an anonymous id: payments,
        credits, charges and usage records. Any balance left is not refunded.
      </p>
      <form className="key-form" onSubmit={submit} noValidate aria-labelledby={headingId}>
        <FormAlert messages={clientErrors ?? errors.general} />
        <TextField
          label="Your password"
          type="password"
          name="password"
          autoComplete="current-password"
          maxLength={PASSWORD_MAX_LENGTH}
          value={password}
          onChange={(event) => setPassword(event.target.value)}
          errors={errors.fields.password}
        />
        <CheckboxField
          label="I understand that this cannot be undone"
          checked={understood}
          onChange={(event) => setUnderstood(event.target.checked)}
        />
        <Button type="submit" variant="danger" busy={mutation.isPending}>
          Delete my account
        </Button>
      </form>
    </section>
  );
}
