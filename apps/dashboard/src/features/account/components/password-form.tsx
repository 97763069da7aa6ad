import { useId, useState } from 'react';
import type { FormEvent } from 'react';
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from '@switchyard/shared-dto';

import { FormAlert } from '../../../components/ui/alert';
import { Button } from '../../../components/ui/button';
import { CheckboxField } from '../../../components/ui/checkbox-field';
import { TextField } from '../../../components/ui/text-field';
import { toFormErrors } from '../../../lib/form-errors';
import { revokedWords, useChangePassword } from '../api/account';

const FIELDS = ['currentPassword', 'newPassword', 'confirm'] as const;
type Field = (typeof FIELDS)[number];

/** Changes the password; the server asks for the current one and signs out every other session. */
export function PasswordForm() {
  const headingId = useId();
  const [values, setValues] = useState<Record<Field, string>>({ currentPassword: '', newPassword: '', confirm: '' });
  const [clientErrors, setClientErrors] = useState<Partial<Record<Field, string[]>> | null>(null);
  const [done, setDone] = useState<string>('');
  const [revokeCredentials, setRevokeCredentials] = useState(false);
  const mutation = useChangePassword();
  const serverErrors = toFormErrors(mutation.error, FIELDS);
  const errors = clientErrors ?? serverErrors.fields;

  const set = (field: Field) => (event: { target: { value: string } }) =>
    setValues((current) => ({ ...current, [field]: event.target.value }));

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setDone('');
    mutation.reset();
    const problems: Partial<Record<Field, string[]>> = {};
    if (!values.currentPassword) problems.currentPassword = ['Enter the password you sign in with now.'];
    if (values.newPassword.length < PASSWORD_MIN_LENGTH)
      problems.newPassword = [`Choose a new password of at least ${PASSWORD_MIN_LENGTH} characters.`];
    else if (values.confirm !== values.newPassword) problems.confirm = ['The two new passwords are not the same.'];
    if (Object.keys(problems).length) {
      setClientErrors(problems);
      return;
    }
    setClientErrors(null);
    mutation.mutate(
      { currentPassword: values.currentPassword, newPassword: values.newPassword, revokeCredentials },
      {
        onSuccess: (ended) => {
          const { signedOutSessions } = ended;
          setValues({ currentPassword: '', newPassword: '', confirm: '' });
          setRevokeCredentials(false);
          setDone(
            [
              signedOutSessions
                ? `Your password is changed, and ${signedOutSessions} other ${signedOutSessions === 1 ? 'session was' : 'sessions were'} signed out.`
                : 'Your password is changed.',
              revokedWords(ended),
            ]
              .filter(Boolean)
              .join(' '),
          );
        },
      },
    );
  };

  return (
    <section className="card" aria-labelledby={headingId}>
      <h2 id={headingId} className="card-title">
        Password
      </h2>
      <form className="key-form" onSubmit={submit} noValidate aria-labelledby={headingId}>
        {clientErrors ? null : <FormAlert messages={serverErrors.general} />}
        <TextField
          label="Current password"
          type="password"
          name="currentPassword"
          autoComplete="current-password"
          maxLength={PASSWORD_MAX_LENGTH}
          value={values.currentPassword}
          onChange={set('currentPassword')}
          errors={errors.currentPassword}
        />
        <TextField
          label="New password"
          hint={`At least ${PASSWORD_MIN_LENGTH} characters. Everywhere else you are signed in is signed out.`}
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
          hint="For a password that may have leaked: programs using your keys and apps you authorized stop at once, and you create new keys and authorize apps again. Off by default."
          checked={revokeCredentials}
          onChange={(event) => setRevokeCredentials(event.target.checked)}
        />
        <Button type="submit" busy={mutation.isPending}>
          Change password
        </Button>
        <p role="status" className="muted small">
          {done}
        </p>
      </form>
    </section>
  );
}
