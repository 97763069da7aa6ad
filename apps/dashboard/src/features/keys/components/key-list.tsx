import { useId, useState } from 'react';

import { CheckboxField } from '../../../components/ui/checkbox-field';
import { QueryList } from '../../../components/ui/query-list';
import { useKeys } from '../api/list-keys';
import { visibleKeys } from '../lib/key-limits';
import { KeyCard } from './key-card';

/** The caller's keys, newest first; revoked ones only when asked for. */
export function KeyList() {
  const headingId = useId();
  const keysQuery = useKeys();
  const [showRevoked, setShowRevoked] = useState(false);
  const [announcement, setAnnouncement] = useState('');
  const revokedCount = keysQuery.data?.filter((key) => key.status === 'Revoked').length ?? 0;

  return (
    <section className="card stack" aria-labelledby={headingId}>
      <div className="card-heading-row">
        <h2 id={headingId} className="card-title">
          Your keys
        </h2>
        <CheckboxField
          label={`Show revoked keys (${revokedCount})`}
          checked={showRevoked}
          onChange={(event) => setShowRevoked(event.target.checked)}
        />
      </div>
      <p className="visually-hidden" role="status">
        {announcement}
      </p>
      <QueryList query={keysQuery} what="your keys" empty="No API keys yet.">
        {(keys) => {
          const shown = visibleKeys(keys, showRevoked);
          return shown.length ? (
            <div className="app-cards">
              {shown.map((key) => (
                <KeyCard key={key.id} apiKey={key} onAnnounce={setAnnouncement} />
              ))}
            </div>
          ) : (
            <p className="muted">Every key you made is revoked. Tick “Show revoked keys” to see them.</p>
          );
        }}
      </QueryList>
    </section>
  );
}
