import { useState } from 'react';
import type { FormEvent } from 'react';

import { FormAlert } from '../../../components/ui/alert';
import { Button } from '../../../components/ui/button';
import { TextField } from '../../../components/ui/text-field';
import { toFormErrors } from '../../../lib/form-errors';
import { Link } from '../../../lib/router';
import { useRequestPasswordReset } from '../api/recovery';

const FIELDS = ['email'] as const;

/** Asks for a reset link; the answer is the same whether or not an account uses the address. */
export function ForgotPasswordForm() {
  const [email, setEmail] = useState('');
  const mutation = useRequestPasswordReset();
  const errors = toFormErrors(mutation.error, FIELDS);

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    mutation.mutate({ email: email.trim() });
  };

  if (mutation.isSuccess)
    return (
      <div className="stack">
        <p role="status">
          If an account uses <strong>{email.trim()}</strong>, a link to reset its password is on its way. It works once,
          for a short while; look in the spam folder too.
        </p>
        <p className="auth-switch">
          <Link href="/signin">Back to sign in</Link>
        </p>
      </div>
    );

  return (
    <form className="auth-form" onSubmit={submit} noValidate aria-label="Reset your password">
      <FormAlert messages={errors.general} />
      <TextField
        label="Email"
        type="email"
        name="email"
        autoComplete="email"
        required
        value={email}
        onChange={(event) => setEmail(event.target.value)}
        errors={errors.fields.email}
      />
      <Button type="submit" busy={mutation.isPending} className="button-block">
        Mail me a reset link
      </Button>
      <p className="auth-switch">
        Remembered it? <Link href="/signin">Sign in</Link>
      </p>
    </form>
  );
}
