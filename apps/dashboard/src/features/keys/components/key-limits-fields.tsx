import { KEY_NAME_MAX_LENGTH } from '@switchyard/shared-dto';

import { TextField } from '../../../components/ui/text-field';
import { LIMIT_LABELS, MONEY_LIMITS } from '../lib/key-limits';
import type { KeyLimitField, KeyLimitInputs } from '../lib/key-limits';

interface KeyLimitsFieldsProps {
  value: KeyLimitInputs;
  onChange: (value: KeyLimitInputs) => void;
  errors?: Partial<Record<KeyLimitField, string[]>>;
  disabled?: boolean;
}

/** A key's spend limits (currency units; windows are UTC days, weeks and months) and its rate; blank means none. */
export function KeyLimitsFields({ value, onChange, errors = {}, disabled }: KeyLimitsFieldsProps) {
  return (
    <fieldset className="fieldset key-limits">
      <legend className="field-label">Spend limits</legend>
      <p className="field-hint">
        Calls that would go past a limit are refused. Days, weeks and months are UTC calendar ones. Leave a box blank
        for no limit.
      </p>
      <div className="key-limits-grid">
        {MONEY_LIMITS.map((field) => (
          <TextField
            key={field}
            label={LIMIT_LABELS[field]}
            type="text"
            inputMode="decimal"
            name={field}
            autoComplete="off"
            placeholder="No limit"
            disabled={disabled}
            value={value[field]}
            onChange={(event) => onChange({ ...value, [field]: event.target.value })}
            errors={errors[field]}
          />
        ))}
        <TextField
          label={LIMIT_LABELS.requestsPerMinute}
          type="text"
          inputMode="numeric"
          name="requestsPerMinute"
          autoComplete="off"
          placeholder="Server default"
          disabled={disabled}
          value={value.requestsPerMinute}
          onChange={(event) => onChange({ ...value, requestsPerMinute: event.target.value })}
          errors={errors.requestsPerMinute}
        />
      </div>
    </fieldset>
  );
}

interface KeyNameFieldProps {
  label: string;
  hint?: string;
  value: string;
  onChange: (value: string) => void;
  errors?: string[];
  disabled?: boolean;
}

/** A key's name (required, at most KEY_NAME_MAX_LENGTH characters). */
export function KeyNameField({ label, hint, value, onChange, errors, disabled }: KeyNameFieldProps) {
  return (
    <TextField
      label={label}
      hint={hint}
      type="text"
      name="name"
      autoComplete="off"
      required
      maxLength={KEY_NAME_MAX_LENGTH}
      value={value}
      onChange={(event) => onChange(event.target.value)}
      errors={errors}
      disabled={disabled}
    />
  );
}
