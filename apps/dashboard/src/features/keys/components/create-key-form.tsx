import { useId, useRef, useState } from 'react';
import type { FormEvent } from 'react';
import { KEY_NAME_MAX_LENGTH } from '@switchyard/shared-dto';
import type { ApiKeyCreatedResponse } from '@switchyard/shared-dto';

import { FormAlert } from '../../../components/ui/alert';
import { Button } from '../../../components/ui/button';
import { TextField } from '../../../components/ui/text-field';
import { toFormErrors } from '../../../lib/form-errors';
import { useCreateKey } from '../api/create-key';
import { NewKeyPanel } from './new-key-panel';

const FIELDS = ['name'] as const;

/** Names and creates a key, then shows it once. The full key lives in this component's state and nowhere else. */
export function CreateKeyForm() {
  const headingId = useId();
  const formRef = useRef<HTMLFormElement>(null);
  const [name, setName] = useState('');
  const [created, setCreated] = useState<ApiKeyCreatedResponse | null>(null);
  const createMutation = useCreateKey();
  const errors = toFormErrors(createMutation.error, FIELDS);

  const handleSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setCreated(null);
    createMutation.mutate(
      { name: name.trim() },
      {
        onSuccess: (key) => {
          setCreated(key);
          setName('');
          // Drop the answer (and the key in it) from the mutation; with gcTime 0 the cache forgets it too.
          createMutation.reset();
        },
      },
    );
  };

  const handleDone = () => {
    setCreated(null);
    const input = formRef.current?.elements.namedItem('name');
    if (input instanceof HTMLInputElement) input.focus();
  };

  return (
    <section className="card" aria-labelledby={headingId}>
      <h2 id={headingId} className="card-title">
        Create key
      </h2>
      <form ref={formRef} className="key-form" onSubmit={handleSubmit} noValidate aria-labelledby={headingId}>
        <FormAlert messages={errors.general} />
        <TextField
          label="Key name"
          hint="Something that tells you where the key is used, such as “CI” or “My laptop”."
          type="text"
          name="name"
          autoComplete="off"
          required
          maxLength={KEY_NAME_MAX_LENGTH}
          value={name}
          onChange={(event) => setName(event.target.value)}
          errors={errors.fields.name}
        />
        <Button type="submit" busy={createMutation.isPending}>
          Create key
        </Button>
      </form>
      {created ? <NewKeyPanel created={created} onDone={handleDone} /> : null}
    </section>
  );
}
