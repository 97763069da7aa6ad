import { useState } from 'react';
import type { FormEvent } from 'react';
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from '@switchyard/shared-dto';

import { Alert, FormAlert } from '../../../components/ui/alert';
import { Button } from '../../../components/ui/button';
import { CheckboxField } from '../../../components/ui/checkbox-field';
import { TextField } from '../../../components/ui/text-field';
import { toFormErrors } from '../../../lib/form-errors';
import { Link } from '../../../lib/router';
import { useConfirmPasswordReset } from '../api/recovery';

const FIELDS = ['newPassword', 'confirm', 'token'] as const;
type Field = 'newPassword' | 'confirm';

/** Sets a new password with the reset link's token; every session is signed out. */
export function ResetPasswordForm({ token }: { token: string }) {
  const [values, setValues] = useState<Record<Field, string>>({ newPassword: '', confirm: '' });
  const [revokeCredentials, setRevokeCredentials] = useState(false);
  const [clientErrors, setClientErrors] = useState<Partial<Record<Field, string[]>> | null>(null);
  const mutation = useConfirmPasswordReset();
  const serverErrors = toFormErrors(mutation.error, FIELDS);
  const errors = clientErrors ?? serverErrors.fields;

  if (!token)
    return (
      <Alert>
        This page needs the link from the reset mail. <Link href="/forgot-password">Ask for a new one</Link>.
      </Alert>
    );

  if (mutation.isSuccess)
    return (
      <div className="stack">
        <p role="status">Your password is changed, and every session was signed out.</p>
        <Link href="/signin" className="button button-primary button-block">
          Sign in with it
        </Link>
      </div>
    );

  const set = (field: Field) => (event: { target: { value: string } }) =>
    setValues((current) => ({ ...current, [field]: event.target.value }));

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    mutation.reset();
    const problems: Partial<Record<Field, string[]>> = {};
    if (values.newPassword.length < PASSWORD_MIN_LENGTH)
      problems.newPassword = [`Choose a password of at least ${PASSWORD_MIN_LENGTH} characters.`];
    else if (values.confirm !== values.newPassword) problems.confirm = ['The two passwords are not the same.'];
    if (Object.keys(problems).length) {
      setClientErrors(problems);
      return;
    }
    setClientErrors(null);
    mutation.mutate({ token, newPassword: values.newPassword, revokeCredentials });
  };

  const linkProblem = serverErrors.fields.token;
  return (
    <form className="auth-form" onSubmit={submit} noValidate aria-label="Choose a new password">
      {linkProblem?.length ? (
        <Alert>
          {linkProblem[0]} <Link href="/forgot-password">Ask for a new link</Link>.
        </Alert>
      ) : null}
      {clientErrors ? null : <FormAlert messages={serverErrors.general} />}
      <TextField
        label="New password"
        hint={`At least ${PASSWORD_MIN_LENGTH} characters.`}
        type="password"
        name="newPassword"
        autoComplete="new-password"
        maxLength={PASSWORD_MAX_LENGTH}
        value={values.newPassword}
        onChange={set('newPassword')}
        errors={errors.newPassword}
      />
      <TextField
        label="New password again"
        type="password"
        name="confirm"
        autoComplete="new-password"
        maxLength={PASSWORD_MAX_LENGTH}
        value={values.confirm}
        onChange={set('confirm')}
        errors={errors.confirm}
      />
      <CheckboxField
        label="Also revoke every API key and app authorization"
        hint="If someone else may have had your password. Off by default."
        checked={revokeCredentials}
        onChange={(event) => setRevokeCredentials(event.target.checked)}
      />
      <Button type="submit" busy={mutation.isPending} className="button-block">
        Set the new password
      </Button>
    </form>
  );
}
