import { useId, useState } from 'react';

import { Alert } from '../../../components/ui/alert';
import { Button } from '../../../components/ui/button';
import { CheckboxField } from '../../../components/ui/checkbox-field';
import { useSignOutEverywhere } from '../api/account';

/** Signs out every browser and device where the account is signed in, this one too. */
export function SessionsCard({ onSignedOut }: { onSignedOut: () => void }) {
  const headingId = useId();
  const mutation = useSignOutEverywhere(onSignedOut);
  const [revokeCredentials, setRevokeCredentials] = useState(false);

  return (
    <section className="card stack" aria-labelledby={headingId}>
      <h2 id={headingId} className="card-title">
        Sessions
      </h2>
      <p>
        Signed in on a computer you no longer use, or not sure? Sign out everywhere, this browser too. API keys and the
        apps you authorized keep working unless you tick the box below.
      </p>
      <CheckboxField
        label="Also revoke every API key and app authorization"
        hint="Programs using your keys and apps you authorized stop at once. Off by default."
        checked={revokeCredentials}
        onChange={(event) => setRevokeCredentials(event.target.checked)}
      />
      {mutation.isError ? <Alert>Signing out did not work: {mutation.error.message}</Alert> : null}
      <div>
        <Button variant="secondary" busy={mutation.isPending} onClick={() => mutation.mutate({ revokeCredentials })}>
          Sign out everywhere
        </Button>
      </div>
    </section>
  );
}
