import { useId, useRef, useState } from 'react';

import { Alert } from '../../../components/ui/alert';
import { Button } from '../../../components/ui/button';
import { useOAuthApps } from '../api/list-oauth-apps';
import { AppCard } from './app-card';

/** The caller's registered apps, newest first as the server sends them. */
export function AppList() {
  const headingId = useId();
  const headingRef = useRef<HTMLHeadingElement>(null);
  const appsQuery = useOAuthApps();
  const [announcement, setAnnouncement] = useState('');

  const announce = (message: string, options: { removed?: boolean } = {}) => {
    setAnnouncement(message);
    // A deleted app takes its focused button with it; keep keyboard users in this section.
    if (options.removed) headingRef.current?.focus();
  };

  let body;
  if (appsQuery.isPending) {
    body = (
      <p className="muted" role="status">
        Loading your apps…
      </p>
    );
  } else if (appsQuery.isError) {
    body = (
      <div className="stack">
        <Alert>Could not load your apps: {appsQuery.error.message}</Alert>
        <div>
          <Button variant="secondary" busy={appsQuery.isFetching} onClick={() => void appsQuery.refetch()}>
            Try again
          </Button>
        </div>
      </div>
    );
  } else if (appsQuery.data.length === 0) {
    body = <p className="muted">No OAuth apps yet.</p>;
  } else {
    body = (
      <div className="app-cards">
        {appsQuery.data.map((app) => (
          <AppCard key={app.id} app={app} onAnnounce={announce} />
        ))}
      </div>
    );
  }

  return (
    <section className="card" aria-labelledby={headingId}>
      <h2 id={headingId} ref={headingRef} className="card-title" tabIndex={-1}>
        Your apps
      </h2>
      <p className="visually-hidden" role="status">
        {announcement}
      </p>
      {body}
    </section>
  );
}
