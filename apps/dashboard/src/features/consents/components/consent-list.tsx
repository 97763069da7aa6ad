import { useId, useRef, useState } from 'react';

import { Alert } from '../../../components/ui/alert';
import { Button } from '../../../components/ui/button';
import { useConsents } from '../api/list-consents';
import { ConsentCard } from './consent-card';

/** Every app the user authorized. */
export function ConsentList() {
  const headingId = useId();
  const headingRef = useRef<HTMLHeadingElement>(null);
  const consentsQuery = useConsents();
  const [announcement, setAnnouncement] = useState('');

  const announce = (message: string, options: { removed?: boolean } = {}) => {
    setAnnouncement(message);
    // A revoked app takes its focused button with it; keep keyboard users in this section.
    if (options.removed) headingRef.current?.focus();
  };

  let body;
  if (consentsQuery.isPending) {
    body = (
      <p className="muted" role="status">
        Loading your authorized apps…
      </p>
    );
  } else if (consentsQuery.isError) {
    body = (
      <div className="stack">
        <Alert>Could not load your authorized apps: {consentsQuery.error.message}</Alert>
        <div>
          <Button variant="secondary" busy={consentsQuery.isFetching} onClick={() => void consentsQuery.refetch()}>
            Try again
          </Button>
        </div>
      </div>
    );
  } else if (consentsQuery.data.length === 0) {
    body = <p className="muted">You have not authorized any apps.</p>;
  } else {
    body = (
      <div className="app-cards">
        {consentsQuery.data.map((consent) => (
          <ConsentCard key={consent.clientId} consent={consent} onAnnounce={announce} />
        ))}
      </div>
    );
  }

  return (
    <section className="card" aria-labelledby={headingId}>
      <h2 id={headingId} ref={headingRef} className="card-title" tabIndex={-1}>
        Apps with access to your account
      </h2>
      <p className="visually-hidden" role="status">
        {announcement}
      </p>
      {body}
    </section>
  );
}
