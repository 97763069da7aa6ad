import { useId, useRef, useState } from 'react';
import type { FormEvent } from 'react';
import type { ApiKeyCreatedResponse } from '@switchyard/shared-dto';

import { FormAlert } from '../../../components/ui/alert';
import { Button } from '../../../components/ui/button';
import { TextField } from '../../../components/ui/text-field';
import { toFormErrors } from '../../../lib/form-errors';
import { useCreateKey } from '../api/create-key';
import { EMPTY_LIMIT_INPUTS, parseExpiryDate, parseLimitInputs } from '../lib/key-limits';
import type { KeyLimitInputs } from '../lib/key-limits';
import { KeyLimitsFields, KeyNameField } from './key-limits-fields';
import { NewKeyPanel } from './new-key-panel';

const FIELDS = ['name', 'expiresAt', 'perRequest', 'daily', 'weekly', 'monthly', 'total', 'requestsPerMinute'] as const;

type ClientErrors = Partial<Record<(typeof FIELDS)[number], string[]>>;

/**
 * Names and creates a key, optionally with limits and an expiry date, then shows it once. The full key lives in
 * this component's state and nowhere else.
 */
export function CreateKeyForm() {
  const headingId = useId();
  const formRef = useRef<HTMLFormElement>(null);
  const [name, setName] = useState('');
  const [limits, setLimits] = useState<KeyLimitInputs>(EMPTY_LIMIT_INPUTS);
  const [expiry, setExpiry] = useState('');
  const [clientErrors, setClientErrors] = useState<ClientErrors | null>(null);
  const [created, setCreated] = useState<ApiKeyCreatedResponse | null>(null);
  const createMutation = useCreateKey();
  const serverErrors = toFormErrors(createMutation.error, FIELDS);
  const errors = clientErrors ?? serverErrors.fields;

  const handleSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setCreated(null);
    createMutation.reset();
    const parsedLimits = parseLimitInputs(limits);
    const parsedExpiry = parseExpiryDate(expiry);
    if (!parsedLimits.ok || !parsedExpiry.ok) {
      setClientErrors({
        ...(parsedLimits.ok ? {} : parsedLimits.problems),
        ...(parsedExpiry.ok ? {} : { expiresAt: [parsedExpiry.problem] }),
      });
      return;
    }
    setClientErrors(null);
    createMutation.mutate(
      { name: name.trim(), ...parsedLimits.value, expiresAt: parsedExpiry.value },
      {
        onSuccess: (key) => {
          setCreated(key);
          setName('');
          setLimits(EMPTY_LIMIT_INPUTS);
          setExpiry('');
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
        {clientErrors ? null : <FormAlert messages={serverErrors.general} />}
        <KeyNameField
          label="Key name"
          hint="Something that tells you where the key is used, such as “CI” or “My laptop”."
          value={name}
          onChange={setName}
          errors={errors.name}
        />
        <details className="key-form-more" open={clientErrors !== null || undefined}>
          <summary>Limits and expiry (optional)</summary>
          <div className="stack">
            <KeyLimitsFields value={limits} onChange={setLimits} errors={errors} disabled={createMutation.isPending} />
            <TextField
              label="Expires after"
              hint="The key works through this day (UTC) and stops at the next midnight. Leave blank to keep it until you revoke it."
              type="date"
              name="expiresAt"
              value={expiry}
              onChange={(event) => setExpiry(event.target.value)}
              errors={errors.expiresAt}
            />
          </div>
        </details>
        <Button type="submit" busy={createMutation.isPending}>
          Create key
        </Button>
      </form>
      {created ? <NewKeyPanel created={created} onDone={handleDone} /> : null}
    </section>
  );
}
