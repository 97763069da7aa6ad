import { useState } from 'react';
import type { FormEvent } from 'react';
import type { ConsentResponse } from '@switchyard/shared-dto';

import { FormAlert } from '../../../components/ui/alert';
import { Button } from '../../../components/ui/button';
import { SpendCapFields } from '../../../components/ui/spend-cap-fields';
import { toFormErrors } from '../../../lib/form-errors';
import { capInputsFrom, parseCapInputs } from '../../../lib/money';
import type { CapInputs } from '../../../lib/money';
import { useUpdateConsentLimits } from '../api/update-consent-limits';

const FIELDS = ['monthly', 'perRequest'] as const;

interface ConsentLimitsFormProps {
  consent: ConsentResponse;
  onDone: (saved: boolean) => void;
}

/** Changes what one app may spend; blank removes a cap. */
export function ConsentLimitsForm({ consent, onDone }: ConsentLimitsFormProps) {
  const [inputs, setInputs] = useState<CapInputs>(() => capInputsFrom(consent.limits));
  const [clientErrors, setClientErrors] = useState<Partial<Record<keyof CapInputs, string[]>> | null>(null);
  const updateMutation = useUpdateConsentLimits();
  const serverErrors = toFormErrors(updateMutation.error, FIELDS);

  const handleSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    updateMutation.reset();
    const parsed = parseCapInputs(inputs);
    if (!parsed.ok) {
      setClientErrors(parsed.problems);
      return;
    }
    setClientErrors(null);
    updateMutation.mutate({ clientId: consent.clientId, limits: parsed.value }, { onSuccess: () => onDone(true) });
  };

  return (
    <form
      className="caps-form"
      onSubmit={handleSubmit}
      noValidate
      aria-label={`Spending caps for ${consent.clientName}`}
    >
      {clientErrors ? null : <FormAlert messages={serverErrors.general} />}
      <SpendCapFields
        value={inputs}
        onChange={setInputs}
        errors={clientErrors ?? serverErrors.fields}
        disabled={updateMutation.isPending}
      />
      <div className="button-row">
        <Button type="submit" busy={updateMutation.isPending}>
          Save caps
        </Button>
        <Button variant="secondary" disabled={updateMutation.isPending} onClick={() => onDone(false)}>
          Cancel
        </Button>
      </div>
    </form>
  );
}
