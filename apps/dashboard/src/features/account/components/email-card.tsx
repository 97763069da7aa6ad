import { useId } from 'react';
import type { UserResponse } from '@switchyard/shared-dto';

import { Alert } from '../../../components/ui/alert';
import { Button } from '../../../components/ui/button';
import { useSendVerification } from '../api/account';

/** The account's address, whether it is verified, and a new verification link on demand. */
export function EmailCard({ user }: { user: UserResponse }) {
  const headingId = useId();
  const send = useSendVerification();
  return (
    <section className="card stack" aria-labelledby={headingId}>
      <h2 id={headingId} className="card-title">
        Email
      </h2>
      <p>
        <strong>{user.email}</strong>{' '}
        <span className={user.emailVerified ? 'badge badge-active' : 'badge badge-revoked'}>
          {user.emailVerified ? 'Verified' : 'Not verified'}
        </span>
      </p>
      {user.emailVerified ? (
        <p className="muted">Password resets, receipts and budget alerts go here.</p>
      ) : (
        <>
          <p className="muted">
            Open the link we mailed you to verify it. Password resets, receipts and budget alerts go here; an operator
            may ask for a verified address before you add funds.
          </p>
          {send.isError ? <Alert>{send.error.message}</Alert> : null}
          <div>
            <Button variant="secondary" busy={send.isPending} onClick={() => send.mutate()}>
              Send the link again
            </Button>
          </div>
          <p role="status" className="muted small">
            {send.isSuccess ? (send.data.sent ? 'A new link is on its way.' : 'Your address is verified already.') : ''}
          </p>
        </>
      )}
    </section>
  );
}
