import { useState } from 'react';
import type { FormEvent } from 'react';
import { PASSWORD_MIN_LENGTH } from '@switchyard/shared-dto';
import type { AuthRegisterRequest, AuthSessionResponse } from '@switchyard/shared-dto';

import { Button } from '../../../components/ui/button';
import { FormErrorAlert } from '../../../components/ui/form-error-alert';
import { TextField } from '../../../components/ui/text-field';
import { toFormErrors } from '../../../lib/form-errors';
import { Link } from '../../../lib/router';
import { useRegister } from '../api/register';

const FIELDS = ['name', 'email', 'password'] as const;

interface RegisterFormProps {
  /** Where the "Sign in" link points (it carries ?next along). */
  signInHref: string;
  onSignedIn: (session: AuthSessionResponse) => void;
}

export function RegisterForm({ signInHref, onSignedIn }: RegisterFormProps) {
  const [name, setName] = useState('');
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [leaving, setLeaving] = useState(false);
  const registerMutation = useRegister();
  const errors = toFormErrors(registerMutation.error, FIELDS);

  const handleSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const body: AuthRegisterRequest = { email: email.trim(), password };
    const trimmedName = name.trim();
    if (trimmedName) body.name = trimmedName;
    registerMutation.mutate(body, {
      onSuccess: (session) => {
        setLeaving(true);
        onSignedIn(session);
      },
    });
  };

  return (
    <form className="auth-form" onSubmit={handleSubmit} noValidate>
      <FormErrorAlert messages={errors.general} />
      <TextField
        label="Name"
        hint="Optional."
        type="text"
        name="name"
        autoComplete="name"
        value={name}
        onChange={(event) => setName(event.target.value)}
        errors={errors.fields.name}
      />
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
        hint={`At least ${PASSWORD_MIN_LENGTH} characters.`}
        type="password"
        name="password"
        autoComplete="new-password"
        required
        minLength={PASSWORD_MIN_LENGTH}
        value={password}
        onChange={(event) => setPassword(event.target.value)}
        errors={errors.fields.password}
      />
      <Button type="submit" busy={registerMutation.isPending || leaving} className="button-block">
        Create account
      </Button>
      <p className="auth-switch">
        Already have an account? <Link href={signInHref}>Sign in</Link>
      </p>
    </form>
  );
}
