import { useId } from 'react';
import type { InputHTMLAttributes, TextareaHTMLAttributes } from 'react';

type TextFieldProps = {
  label: string;
  hint?: string;
  errors?: string[];
} & (
  | (Omit<InputHTMLAttributes<HTMLInputElement>, 'id'> & { multiline?: false })
  | (Omit<TextareaHTMLAttributes<HTMLTextAreaElement>, 'id'> & { multiline: true })
);

/**
 * A labelled input (a textarea with `multiline`) with an optional hint and its validation messages, wired up for
 * screen readers.
 */
export function TextField({ label, hint, errors = [], ...controlProps }: TextFieldProps) {
  const id = useId();
  const hintId = hint ? `${id}-hint` : undefined;
  const errorId = errors.length > 0 ? `${id}-error` : undefined;
  const describedBy = [hintId, errorId].filter(Boolean).join(' ') || undefined;
  const invalid = errors.length > 0 || undefined;

  let control;
  if (controlProps.multiline) {
    const { multiline: _multiline, ...textareaProps } = controlProps;
    control = (
      <textarea
        id={id}
        className="field-input field-textarea"
        aria-invalid={invalid}
        aria-describedby={describedBy}
        {...textareaProps}
      />
    );
  } else {
    const { multiline: _multiline, ...inputProps } = controlProps;
    control = (
      <input id={id} className="field-input" aria-invalid={invalid} aria-describedby={describedBy} {...inputProps} />
    );
  }

  return (
    <div className="field">
      <label className="field-label" htmlFor={id}>
        {label}
      </label>
      {control}
      {hint ? (
        <p id={hintId} className="field-hint">
          {hint}
        </p>
      ) : null}
      {errorId ? (
        <ul id={errorId} className="field-errors">
          {errors.map((message) => (
            <li key={message}>{message}</li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}
