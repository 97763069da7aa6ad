import { useId } from 'react';
import type { SelectHTMLAttributes } from 'react';

export interface SelectOption<V extends string | number> {
  value: V;
  label: string;
}

type SelectFieldProps<V extends string | number> = Omit<
  SelectHTMLAttributes<HTMLSelectElement>,
  'id' | 'value' | 'onChange'
> & {
  label: string;
  hint?: string;
  value: V;
  options: readonly SelectOption<V>[];
  onChange: (value: V) => void;
};

/** A labelled drop-down whose value keeps its type (string or number). */
export function SelectField<V extends string | number>({
  label,
  hint,
  value,
  options,
  onChange,
  ...selectProps
}: SelectFieldProps<V>) {
  const id = useId();
  const hintId = hint ? `${id}-hint` : undefined;
  return (
    <div className="field">
      <label className="field-label" htmlFor={id}>
        {label}
      </label>
      <select
        id={id}
        className="field-input"
        aria-describedby={hintId}
        value={String(value)}
        onChange={(event) => {
          const chosen = options.find((option) => String(option.value) === event.target.value);
          if (chosen) onChange(chosen.value);
        }}
        {...selectProps}
      >
        {options.map((option) => (
          <option key={String(option.value)} value={String(option.value)}>
            {option.label}
          </option>
        ))}
      </select>
      {hint ? (
        <p id={hintId} className="field-hint">
          {hint}
        </p>
      ) : null}
    </div>
  );
}
