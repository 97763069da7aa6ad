import { useId, useState } from 'react';
import type { FormEvent } from 'react';

import { FormAlert } from '../../../components/ui/alert';
import { Button } from '../../../components/ui/button';
import { TextField } from '../../../components/ui/text-field';
import { maskKey } from '../../../lib/gateway';
import { Link } from '../../../lib/router';
import { useCreatePlaygroundKey, useRevokePlaygroundKey } from '../api/playground-key';
import type { GatewayKey } from '../lib/key-store';

interface GatewayKeyPanelProps {
  /** The signed-in user, whose key this is. */
  userId: string;
  value: GatewayKey | null;
  onChange: (value: GatewayKey | null) => void;
  /** After the dashboard created or revoked a key, so the API keys list can refresh. */
  onKeysChanged?: () => void;
}

/** Which API key this page calls the gateway with: one made here with a click, or one pasted in. */
export function GatewayKeyPanel({ userId, value, onChange, onKeysChanged }: GatewayKeyPanelProps) {
  const headingId = useId();
  const [pasted, setPasted] = useState('');
  const [pasteError, setPasteError] = useState<string[]>([]);
  const createMutation = useCreatePlaygroundKey();
  const revokeMutation = useRevokePlaygroundKey();

  const create = () => {
    createMutation.mutate(undefined, {
      onSuccess: (created) => {
        onChange({ key: created.key, userId, id: created.id, name: created.name });
        createMutation.reset();
        onKeysChanged?.();
      },
    });
  };

  const usePasted = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const key = pasted.trim();
    if (!key) {
      setPasteError(['Paste one of your API keys (it starts with sy-).']);
      return;
    }
    setPasteError([]);
    setPasted('');
    onChange({ key, userId, id: null, name: 'Your key' });
  };

  const forget = () => {
    if (value?.id) {
      revokeMutation.mutate(value.id, {
        onSettled: () => {
          onChange(null);
          onKeysChanged?.();
        },
      });
    } else {
      onChange(null);
    }
  };

  if (value) {
    return (
      <section className="card key-panel" aria-labelledby={headingId}>
        <h2 id={headingId} className="card-title">
          Gateway key
        </h2>
        <div className="key-panel-row">
          <p>
            Calls from this page use <strong>{value.name}</strong> <code className="mono">{maskKey(value.key)}</code>.
            It is kept in this browser tab only and forgotten when you close it.
          </p>
          <Button variant="secondary" busy={revokeMutation.isPending} onClick={forget}>
            {value.id ? 'Revoke and forget key' : 'Forget key'}
          </Button>
        </div>
      </section>
    );
  }

  return (
    <section className="card stack" aria-labelledby={headingId}>
      <h2 id={headingId} className="card-title">
        Choose a gateway key
      </h2>
      <p>
        Models are called through the gateway, which takes an API key rather than your dashboard sign-in. Create a key
        for this page with one click, or paste one of <Link href="/keys">your keys</Link>. Calls are paid from your
        balance like any other.
      </p>
      <FormAlert messages={createMutation.isError ? [`Could not create a key: ${createMutation.error.message}`] : []} />
      <div>
        <Button busy={createMutation.isPending} onClick={create}>
          Create a playground key
        </Button>
      </div>
      <p className="field-hint">
        It appears on the API keys page as “Playground (dashboard)”, where you can cap or revoke it.
      </p>
      <form className="paste-key-form" onSubmit={usePasted} noValidate>
        <TextField
          label="Or paste an API key"
          type="password"
          name="apiKey"
          autoComplete="off"
          spellCheck={false}
          value={pasted}
          onChange={(event) => setPasted(event.target.value)}
          errors={pasteError}
        />
        <Button type="submit" variant="secondary">
          Use this key
        </Button>
      </form>
    </section>
  );
}
