import { useEffect, useId, useRef, useState } from 'react';
import type { ApiKeyCreatedResponse } from '@switchyard/shared-dto';

import { Button } from '../../../components/ui/button';

type CopyState = 'idle' | 'copied' | 'selected';

const COPY_MESSAGES: Record<CopyState, string> = {
  idle: '',
  copied: 'Copied to the clipboard.',
  selected: 'The key is selected: press Ctrl+C (⌘C on a Mac) to copy it.',
};

interface NewKeyPanelProps {
  created: ApiKeyCreatedResponse;
  onDone: () => void;
}

/** The one time the full key is visible. */
export function NewKeyPanel({ created, onDone }: NewKeyPanelProps) {
  const id = useId();
  const inputRef = useRef<HTMLInputElement>(null);
  const [copyState, setCopyState] = useState<CopyState>('idle');

  // Keyboard and screen reader users land on the key, already selected.
  useEffect(() => {
    inputRef.current?.focus();
    inputRef.current?.select();
  }, []);

  const selectKey = () => {
    inputRef.current?.focus();
    inputRef.current?.select();
  };

  const copy = async () => {
    try {
      await navigator.clipboard.writeText(created.key);
      setCopyState('copied');
      return;
    } catch {
      // No Clipboard API (plain http on another host than localhost) or no permission: fall back below.
    }
    selectKey();
    let copied = false;
    try {
      // Deprecated, but still the only synchronous way to copy where the Clipboard API is missing.
      copied = document.execCommand('copy');
    } catch {
      copied = false;
    }
    setCopyState(copied ? 'copied' : 'selected');
  };

  return (
    <div className="new-key" aria-labelledby={`${id}-title`} role="group">
      <p id={`${id}-title`} className="new-key-title" role="status">
        Copy your new key now. You won&apos;t see it again.
      </p>
      <div className="field">
        <label className="field-label" htmlFor={`${id}-key`}>
          New API key
        </label>
        <div className="copy-row">
          <input
            ref={inputRef}
            id={`${id}-key`}
            className="field-input mono"
            type="text"
            readOnly
            value={created.key}
            spellCheck={false}
            autoComplete="off"
            aria-describedby={`${id}-title`}
            onFocus={(event) => event.currentTarget.select()}
          />
          <Button variant="secondary" onClick={() => void copy()}>
            Copy
          </Button>
        </div>
        <p className="field-hint" aria-live="polite">
          {COPY_MESSAGES[copyState] || `For “${created.name}”. Store it somewhere safe, such as a secret manager.`}
        </p>
      </div>
      <div>
        <Button onClick={onDone}>Done</Button>
      </div>
    </div>
  );
}
