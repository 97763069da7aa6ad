import { useState } from 'react';

import { Button } from './button';

/** A block of code to read and copy, with a caption. */
export function CodeBlock({ caption, code, copyLabel }: { caption?: string; code: string; copyLabel?: string }) {
  const [copied, setCopied] = useState(false);

  const copy = async () => {
    try {
      await navigator.clipboard.writeText(code);
      setCopied(true);
      setTimeout(() => setCopied(false), 2_000);
    } catch {
      // No clipboard access (plain http on another host): the code can still be selected by hand.
    }
  };

  return (
    <figure className="code-figure">
      <div className="code-figure-header">
        {caption ? <figcaption className="code-caption">{caption}</figcaption> : <span />}
        <Button variant="ghost" className="button-small" onClick={() => void copy()}>
          {copied ? 'Copied' : 'Copy'}
          <span className="visually-hidden"> {copyLabel ?? caption ?? 'code'}</span>
        </Button>
      </div>
      <pre className="code-block" tabIndex={0}>
        <code>{code}</code>
      </pre>
    </figure>
  );
}
