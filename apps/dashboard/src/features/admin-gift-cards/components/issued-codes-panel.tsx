import { useEffect, useId, useRef, useState } from 'react';
import type { GiftCardIssueResponse } from '@switchyard/shared-dto';

import { Button } from '../../../components/ui/button';
import { formatMoney } from '../../../lib/money';

/** The one time the codes are visible: one per line, ready to copy. */
export function IssuedCodesPanel({ issued, onDone }: { issued: GiftCardIssueResponse; onDone: () => void }) {
  const id = useId();
  const areaRef = useRef<HTMLTextAreaElement>(null);
  const [copied, setCopied] = useState<'idle' | 'copied' | 'selected'>('idle');
  const text = issued.cards.map((card) => card.code).join('\n');

  useEffect(() => {
    areaRef.current?.focus();
    areaRef.current?.select();
  }, []);

  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      setCopied('copied');
    } catch {
      // No Clipboard API (plain http on another host): leave them selected for Ctrl+C.
      areaRef.current?.focus();
      areaRef.current?.select();
      setCopied('selected');
    }
  };

  const count = issued.cards.length;
  return (
    <div className="new-key" role="group" aria-labelledby={`${id}-title`}>
      <p id={`${id}-title`} className="new-key-title" role="status">
        Copy the codes now. You won&apos;t see them again.
      </p>
      <div className="field">
        <label className="field-label" htmlFor={`${id}-codes`}>
          New gift card codes
        </label>
        <textarea
          ref={areaRef}
          id={`${id}-codes`}
          className="field-input mono"
          readOnly
          rows={Math.min(count, 10)}
          value={text}
          spellCheck={false}
          onFocus={(event) => event.currentTarget.select()}
        />
        <p className="field-hint" aria-live="polite">
          {copied === 'copied'
            ? 'Copied to the clipboard.'
            : copied === 'selected'
              ? 'The codes are selected: press Ctrl+C (⌘C on a Mac) to copy them.'
              : `${count} card${count === 1 ? '' : 's'} of ${formatMoney(issued.amount)} each, ${
                  issued.expiresAt ? `expiring ${new Date(issued.expiresAt).toLocaleString()}` : 'no expiry'
                }.`}
        </p>
      </div>
      <div className="button-row">
        <Button variant="secondary" onClick={() => void copy()}>
          Copy all
        </Button>
        <Button onClick={onDone}>Done</Button>
      </div>
    </div>
  );
}
