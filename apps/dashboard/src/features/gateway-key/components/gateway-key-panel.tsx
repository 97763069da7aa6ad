import { useId, useState } from 'react';
import type { FormEvent } from 'react';

import { Button } from '../../../components/ui/button';
import { TextField } from '../../../components/ui/text-field';
import { maskKey } from '../../../lib/gateway';
import { Link } from '../../../lib/router';
import { pastedKeyProblem } from '../lib/key-store';
import type { PastedKey } from '../lib/key-store';

interface GatewayKeyPanelProps {
  /** The signed-in user, whose key a pasted one is. */
  userId: string;
  value: PastedKey | null;
  onChange: (value: PastedKey | null) => void;
}

/**
 * How this page calls the gateway: as the user's "Dashboard" key on the session (nothing to create or paste), or
 * with one of their own keys pasted in, checked for the key's form at once.
 */
export function GatewayKeyPanel({ userId, value, onChange }: GatewayKeyPanelProps) {
  const headingId = useId();
  const [pasting, setPasting] = useState(false);
  const [pasted, setPasted] = useState('');
  const [pasteError, setPasteError] = useState<string[]>([]);

  const usePasted = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const problem = pastedKeyProblem(pasted);
    if (problem) {
      setPasteError([problem]);
      return;
    }
    setPasteError([]);
    setPasted('');
    setPasting(false);
    onChange({ key: pasted.trim(), userId });
  };

  return (
    <section className="card stack key-panel" aria-labelledby={headingId}>
      <h2 id={headingId} className="visually-hidden">
        Gateway key
      </h2>
      <div className="key-panel-row">
        {value ? (
          <p>
            Calls from this page use your key <code className="mono">{maskKey(value.key)}</code>. It is kept in this
            page only: reloading or closing it forgets it.
          </p>
        ) : (
          <p>
            Calls from this page use your <strong>Dashboard</strong> key, paid from your balance. See its spend and set
            its limits on <Link href="/keys">API keys</Link>.
          </p>
        )}
        {value ? (
          <Button variant="secondary" onClick={() => onChange(null)}>
            Use the Dashboard key
          </Button>
        ) : (
          <Button variant="secondary" aria-expanded={pasting} onClick={() => setPasting((open) => !open)}>
            {pasting ? 'Cancel' : 'Use one of your keys'}
          </Button>
        )}
      </div>
      {pasting && !value ? (
        <form className="paste-key-form" onSubmit={usePasted} noValidate>
          <TextField
            label="Paste an API key"
            hint="To see exactly what a program with that key sees: its limits, its rate and its errors."
            type="password"
            name="apiKey"
            autoComplete="off"
            spellCheck={false}
            value={pasted}
            onChange={(event) => {
              setPasted(event.target.value);
              setPasteError([]);
            }}
            errors={pasteError}
          />
          <Button type="submit" variant="secondary">
            Use this key
          </Button>
        </form>
      ) : null}
    </section>
  );
}
