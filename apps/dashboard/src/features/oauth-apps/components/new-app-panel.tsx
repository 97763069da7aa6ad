import type { OAuthClientResponse } from '@switchyard/shared-dto';

import { Button } from '../../../components/ui/button';
import { CopyField } from '../../../components/ui/copy-field';

interface NewAppPanelProps {
  created: OAuthClientResponse;
  onDone: () => void;
}

/** Right after creation: the client ID, and the one time the client secret is visible. */
export function NewAppPanel({ created, onDone }: NewAppPanelProps) {
  const secret = created.clientSecret;

  return (
    <div className="new-key" role="group" aria-label={`${created.clientName} registered`}>
      <p className="new-key-title" role="status">
        {secret
          ? `${created.clientName} is registered. Copy the client secret now. You won't see it again.`
          : `${created.clientName} is registered.`}
      </p>
      <CopyField
        label="Client ID"
        value={created.clientId}
        autoFocus={!secret}
        hint="Public: it goes in your app's configuration."
      />
      {secret ? (
        <CopyField
          label="Client secret"
          value={secret}
          autoFocus
          hint="Keep it on your server only, such as in a secret manager. Never ship it in a browser or mobile app."
        />
      ) : null}
      <div>
        <Button onClick={onDone}>Done</Button>
      </div>
    </div>
  );
}
