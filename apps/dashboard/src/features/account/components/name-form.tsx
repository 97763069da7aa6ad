import { useId, useState } from 'react';
import type { FormEvent } from 'react';
import { NAME_MAX_LENGTH } from '@switchyard/shared-dto';
import type { UserResponse } from '@switchyard/shared-dto';

import { FormAlert } from '../../../components/ui/alert';
import { Button } from '../../../components/ui/button';
import { TextField } from '../../../components/ui/text-field';
import { toFormErrors } from '../../../lib/form-errors';
import { useUpdateAccount } from '../api/account';

/** The name shown in the dashboard and on the user's Spaces profile. */
export function NameForm({ user, onSaved }: { user: UserResponse; onSaved: (user: UserResponse) => void }) {
  const headingId = useId();
  const [name, setName] = useState(user.name ?? '');
  const [clientError, setClientError] = useState<string[]>([]);
  const [saved, setSaved] = useState(false);
  const mutation = useUpdateAccount((updated) => {
    setSaved(true);
    onSaved(updated);
  });
  const errors = toFormErrors(mutation.error, ['name'] as const);

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setSaved(false);
    mutation.reset();
    if (name.trim() === '') {
      setClientError(['Enter the name you want to be shown.']);
      return;
    }
    setClientError([]);
    mutation.mutate({ name: name.trim() });
  };

  return (
    <section className="card" aria-labelledby={headingId}>
      <h2 id={headingId} className="card-title">
        Your name
      </h2>
      <form className="key-form" onSubmit={submit} noValidate aria-labelledby={headingId}>
        <FormAlert messages={errors.general} />
        <TextField
          label="Name"
          type="text"
          name="name"
          autoComplete="name"
          maxLength={NAME_MAX_LENGTH}
          value={name}
          onChange={(event) => setName(event.target.value)}
          errors={clientError.length ? clientError : errors.fields.name}
        />
        <p className="muted small">Signed in as {user.email}.</p>
        <Button type="submit" busy={mutation.isPending}>
          Save name
        </Button>
        <p role="status" className="muted small">
          {saved ? 'Your name is saved.' : ''}
        </p>
      </form>
    </section>
  );
}
