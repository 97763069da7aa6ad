import { useId } from 'react';
import type { ApiKeyCreatedResponse } from '@switchyard/shared-dto';

import { Button } from '../../../components/ui/button';
import { CopyField } from '../../../components/ui/copy-field';

interface NewKeyPanelProps {
  created: ApiKeyCreatedResponse;
  onDone: () => void;
}

/** The one time the full key is visible. */
export function NewKeyPanel({ created, onDone }: NewKeyPanelProps) {
  const id = useId();

  return (
    <div className="new-key" aria-labelledby={`${id}-title`} role="group">
      <p id={`${id}-title`} className="new-key-title" role="status">
        Copy your new key now. You won&apos;t see it again.
      </p>
      {/* Keyboard and screen reader users land on the key, already selected. */}
      <CopyField
        label="New API key"
        value={created.key}
        autoFocus
        describedBy={`${id}-title`}
        namedButton={false}
        hint={`For “${created.name}”. Store it somewhere safe, such as a secret manager.`}
      />
      <div>
        <Button onClick={onDone}>Done</Button>
      </div>
    </div>
  );
}
