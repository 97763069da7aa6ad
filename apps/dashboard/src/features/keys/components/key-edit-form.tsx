import { useState } from 'react';
import type { FormEvent } from 'react';
import type { ApiKeyResponse } from '@switchyard/shared-dto';

import { FormAlert } from '../../../components/ui/alert';
import { Button } from '../../../components/ui/button';
import { toFormErrors } from '../../../lib/form-errors';
import { useUpdateKey } from '../api/update-key';
import { limitInputsFrom, parseLimitInputs } from '../lib/key-limits';
import type { KeyLimitField, KeyLimitInputs } from '../lib/key-limits';
import { KeyLimitsFields, KeyNameField } from './key-limits-fields';

const FIELDS = ['name', 'perRequest', 'daily', 'weekly', 'monthly', 'total', 'requestsPerMinute'] as const;

interface KeyEditFormProps {
  apiKey: ApiKeyResponse;
  onDone: (saved: boolean) => void;
}

/** Renames a key and changes its limits; they hold from the key's next call. */
export function KeyEditForm({ apiKey, onDone }: KeyEditFormProps) {
  const [name, setName] = useState(apiKey.name);
  const [limits, setLimits] = useState<KeyLimitInputs>(() => limitInputsFrom(apiKey));
  const [clientErrors, setClientErrors] = useState<Partial<Record<KeyLimitField | 'name', string[]>> | null>(null);
  const updateMutation = useUpdateKey();
  const serverErrors = toFormErrors(updateMutation.error, FIELDS);
  const errors = clientErrors ?? serverErrors.fields;

  const handleSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    updateMutation.reset();
    const parsed = parseLimitInputs(limits);
    const trimmed = name.trim();
    if (!parsed.ok || trimmed === '') {
      setClientErrors({
        ...(parsed.ok ? {} : parsed.problems),
        ...(trimmed === '' ? { name: ['Give the key a name.'] } : {}),
      });
      return;
    }
    setClientErrors(null);
    updateMutation.mutate(
      { id: apiKey.id, name: trimmed === apiKey.name ? undefined : trimmed, limits: parsed.value },
      { onSuccess: () => onDone(true) },
    );
  };

  return (
    <form className="caps-form" onSubmit={handleSubmit} noValidate aria-label={`Edit ${apiKey.name}`}>
      {clientErrors ? null : <FormAlert messages={serverErrors.general} />}
      <KeyNameField
        label="Name"
        value={name}
        onChange={setName}
        errors={errors.name}
        disabled={updateMutation.isPending}
      />
      <KeyLimitsFields value={limits} onChange={setLimits} errors={errors} disabled={updateMutation.isPending} />
      <div className="button-row">
        <Button type="submit" busy={updateMutation.isPending}>
          Save
        </Button>
        <Button variant="secondary" disabled={updateMutation.isPending} onClick={() => onDone(false)}>
          Cancel
        </Button>
      </div>
    </form>
  );
}
