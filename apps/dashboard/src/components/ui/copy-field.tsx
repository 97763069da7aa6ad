import { useEffect, useId, useRef, useState } from 'react';

import { Button } from './button';

type CopyState = 'idle' | 'copied' | 'selected';

interface CopyFieldProps {
  label: string;
  value: string;
  /** Shown under the value until it is copied. */
  hint?: string;
  /** Focus and select the value once shown (for the first of a group). */
  autoFocus?: boolean;
  /** The id of other text that describes the value, such as a "you won't see it again" warning. */
  describedBy?: string;
  /** Whether the Copy button's name says what it copies ("Copy Client secret"); off where the field stands alone. */
  namedButton?: boolean;
}

/** A read-only value with a Copy button, for secrets and identifiers shown after creation. */
export function CopyField({ label, value, hint, autoFocus = false, describedBy, namedButton = true }: CopyFieldProps) {
  const id = useId();
  const inputRef = useRef<HTMLInputElement>(null);
  const [copyState, setCopyState] = useState<CopyState>('idle');

  useEffect(() => {
    if (!autoFocus) return;
    inputRef.current?.focus();
    inputRef.current?.select();
  }, [autoFocus]);

  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value);
      setCopyState('copied');
      return;
    } catch {
      // No Clipboard API (plain http on another host than localhost) or no permission: fall back below.
    }
    inputRef.current?.focus();
    inputRef.current?.select();
    let copied: boolean;
    try {
      // Deprecated, but still the only synchronous way to copy where the Clipboard API is missing.
      copied = document.execCommand('copy');
    } catch {
      copied = false;
    }
    setCopyState(copied ? 'copied' : 'selected');
  };

  const message =
    copyState === 'copied'
      ? 'Copied to the clipboard.'
      : copyState === 'selected'
        ? 'Selected: press Ctrl+C (⌘C on a Mac) to copy it.'
        : (hint ?? '');

  return (
    <div className="field">
      <label className="field-label" htmlFor={`${id}-value`}>
        {label}
      </label>
      <div className="copy-row">
        <input
          ref={inputRef}
          id={`${id}-value`}
          className="field-input mono"
          type="text"
          readOnly
          value={value}
          spellCheck={false}
          autoComplete="off"
          aria-describedby={[describedBy, message ? `${id}-hint` : undefined].filter(Boolean).join(' ') || undefined}
          onFocus={(event) => event.currentTarget.select()}
        />
        <Button variant="secondary" onClick={() => void copy()}>
          Copy{namedButton ? <span className="visually-hidden"> {label}</span> : null}
        </Button>
      </div>
      {message ? (
        <p id={`${id}-hint`} className="field-hint" aria-live="polite">
          {message}
        </p>
      ) : null}
    </div>
  );
}
