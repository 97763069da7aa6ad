import type { CapInputs } from '../../lib/money';
import { TextField } from './text-field';

interface SpendCapFieldsProps {
  value: CapInputs;
  onChange: (value: CapInputs) => void;
  errors?: Partial<Record<keyof CapInputs, string[]>>;
  disabled?: boolean;
}

/** What an app may spend of the user's budget: a monthly cap and a per-request maximum; blank means none. */
export function SpendCapFields({ value, onChange, errors = {}, disabled }: SpendCapFieldsProps) {
  return (
    <>
      <TextField
        label="Monthly spending cap"
        hint="The most this app may spend each calendar month (UTC). Leave blank for no cap beyond your budget."
        type="text"
        inputMode="decimal"
        name="monthly"
        autoComplete="off"
        disabled={disabled}
        value={value.monthly}
        onChange={(event) => onChange({ ...value, monthly: event.target.value })}
        errors={errors.monthly}
      />
      <TextField
        label="Maximum per request"
        hint="The most one call by this app may cost. Leave blank for no limit."
        type="text"
        inputMode="decimal"
        name="perRequest"
        autoComplete="off"
        disabled={disabled}
        value={value.perRequest}
        onChange={(event) => onChange({ ...value, perRequest: event.target.value })}
        errors={errors.perRequest}
      />
    </>
  );
}
