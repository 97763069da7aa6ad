import { useState } from 'react';
import type { FormEvent } from 'react';
import type { AuthSessionResponse } from '@switchyard/shared-dto';

import { FormAlert } from '../../../components/ui/alert';
import { Button } from '../../../components/ui/button';
import { TextField } from '../../../components/ui/text-field';
import { toFormErrors } from '../../../lib/form-errors';
import { Link } from '../../../lib/router';
import { useLogin } from '../api/login';

const FIELDS = ['email', 'password'] as const;

interface SignInFormProps {
  /** Where the "Create an account" link points (it carries ?next along). */
  registerHref: string;
  onSignedIn: (session: AuthSessionResponse) => void;
}

export function SignInForm({ registerHref, onSignedIn }: SignInFormProps) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [leaving, setLeaving] = useState(false);
  const loginMutation = useLogin();
  const errors = toFormErrors(loginMutation.error, FIELDS);

  const handleSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    loginMutation.mutate(
      { email: email.trim(), password },
      {
        onSuccess: (session) => {
          setLeaving(true);
          onSignedIn(session);
        },
      },
    );
  };

  return (
    <form className="auth-form" onSubmit={handleSubmit} noValidate>
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
      <TextField
        label="Password"
        type="password"
        name="password"
        autoComplete="current-password"
        required
        value={password}
        onChange={(event) => setPassword(event.target.value)}
        errors={errors.fields.password}
      />
      <p className="auth-forgot">
        <Link href="/forgot-password">Forgot password?</Link>
      </p>
      <Button type="submit" busy={loginMutation.isPending || leaving} className="button-block">
        Sign in
      </Button>
      <p className="auth-switch">
        New to Switchyard? <Link href={registerHref}>Create an account</Link>
      </p>
    </form>
  );
}
