import { useEffect, useId, useState } from 'react';
import type { FormEvent } from 'react';
import { SPACE_HANDLE_RANGE, SPACE_RESERVED_HANDLES, spaceHandleProblem } from '@switchyard/shared-dto';
import type { SpaceHandleResponse } from '@switchyard/shared-dto';

import { FormAlert } from '../../../components/ui/alert';
import { Button } from '../../../components/ui/button';
import { TextField } from '../../../components/ui/text-field';
import { toFormErrors } from '../../../lib/form-errors';
import { useHandleCheck } from '../api/check-handle';
import { useSetHandle } from '../api/set-handle';

const FIELDS = ['handle'] as const;
const CHECK_DELAY_MS = 300;

interface HandleFormProps {
  /** The user's handle now, if any. */
  current: string | null;
  /** Refreshes what else shows the handle (the signed-in user), before the form says it is saved. */
  onSaved: (saved: SpaceHandleResponse) => Promise<unknown> | void;
}

/** Claims (or changes) the handle, saying as the user types whether it is well formed and free. */
export function HandleForm({ current, onSaved }: HandleFormProps) {
  const headingId = useId();
  const [value, setValue] = useState(current ?? '');
  const [settled, setSettled] = useState(value);
  const [saved, setSaved] = useState(false);
  const setMutation = useSetHandle({ onSaved });
  const errors = toFormErrors(setMutation.error, FIELDS);

  // Ask the server only once typing pauses.
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), CHECK_DELAY_MS);
    return () => clearTimeout(timer);
  }, [value]);

  const problem = value ? spaceHandleProblem(value) : null;
  const mine = value === current;
  const check = useHandleCheck(settled, Boolean(value) && !problem && !mine && settled === value);

  let status = '';
  if (mine && current) status = saved ? `Saved. Your handle is ${current}.` : `This is your handle.`;
  else if (problem)
    status = SPACE_RESERVED_HANDLES.includes(value) ? `${value} is a reserved word.` : `A handle ${problem}.`;
  else if (value && (settled !== value || check.isFetching)) status = 'Checking…';
  else if (check.data?.available) status = `${value} is available.`;
  else if (check.data?.reason === 'reserved') status = `${value} is a reserved word.`;
  else if (check.data) status = `${value} is taken.`;

  const handleSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setSaved(false);
    setMutation.mutate(value, { onSuccess: () => setSaved(true) });
  };

  return (
    <section className="card" aria-labelledby={headingId}>
      <h2 id={headingId} className="card-title">
        {current ? 'Your handle' : 'Claim a handle'}
      </h2>
      <form className="key-form" onSubmit={handleSubmit} noValidate aria-labelledby={headingId}>
        <FormAlert messages={errors.general} />
        <TextField
          label="Handle"
          hint={`${SPACE_HANDLE_RANGE[0]}-${SPACE_HANDLE_RANGE[1]} lowercase letters, digits, "_" or "-". Your published apps live under it, and your profile is at /u/your-handle.`}
          type="text"
          name="handle"
          autoComplete="off"
          autoCapitalize="none"
          spellCheck={false}
          maxLength={SPACE_HANDLE_RANGE[1]}
          value={value}
          onChange={(event) => {
            setSaved(false);
            setMutation.reset();
            setValue(event.target.value.toLowerCase().trim());
          }}
          errors={errors.fields.handle}
        />
        <Button type="submit" busy={setMutation.isPending} disabled={!value || Boolean(problem) || mine}>
          {current ? 'Change handle' : 'Claim handle'}
        </Button>
      </form>
      <p className="field-hint" role="status" aria-live="polite">
        {status}
      </p>
    </section>
  );
}
