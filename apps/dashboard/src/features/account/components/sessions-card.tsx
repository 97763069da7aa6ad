import { useId } from 'react';

import { Alert } from '../../../components/ui/alert';
import { Button } from '../../../components/ui/button';
import { useSignOutEverywhere } from '../api/account';

/** Signs out every browser and device where the account is signed in, this one too. */
export function SessionsCard({ onSignedOut }: { onSignedOut: () => void }) {
  const headingId = useId();
  const mutation = useSignOutEverywhere(onSignedOut);

  return (
    <section className="card stack" aria-labelledby={headingId}>
      <h2 id={headingId} className="card-title">
        Sessions
      </h2>
      <p>
        Signed in on a computer you no longer use, or not sure? Sign out everywhere, this browser too. API keys keep
        working; revoke them on the API keys page.
      </p>
      {mutation.isError ? <Alert>Signing out did not work: {mutation.error.message}</Alert> : null}
      <div>
        <Button variant="secondary" busy={mutation.isPending} onClick={() => mutation.mutate()}>
          Sign out everywhere
        </Button>
      </div>
    </section>
  );
}
