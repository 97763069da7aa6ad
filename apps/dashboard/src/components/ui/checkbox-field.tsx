import { useId } from 'react';
import type { InputHTMLAttributes, ReactNode } from 'react';

type CheckboxFieldProps = Omit<InputHTMLAttributes<HTMLInputElement>, 'id' | 'type'> & {
  label: ReactNode;
  hint?: string;
};

/** A checkbox whose label is its accessible name; the hint is read as its description. */
export function CheckboxField({ label, hint, ...inputProps }: CheckboxFieldProps) {
  const id = useId();
  const hintId = hint ? `${id}-hint` : undefined;

  return (
    <div className="checkbox-field">
      <input id={id} type="checkbox" className="checkbox-input" aria-describedby={hintId} {...inputProps} />
      <div className="checkbox-text">
        <label className="checkbox-label" htmlFor={id}>
          {label}
        </label>
        {hint ? (
          <p id={hintId} className="field-hint">
            {hint}
          </p>
        ) : null}
      </div>
    </div>
  );
}
