import { useId, useState } from 'react';
import type { ApiKeyResponse } from '@switchyard/shared-dto';

import { Alert } from '../../../components/ui/alert';
import { Button } from '../../../components/ui/button';
import { LoadError } from '../../../components/ui/load-error';
import { useKeys } from '../api/list-keys';
import { useRevokeKey } from '../api/revoke-key';

const dateFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium' });
const dateTimeFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

function FormattedDate({ iso, format }: { iso: string; format: Intl.DateTimeFormat }) {
  const date = new Date(iso);
  const text = Number.isNaN(date.getTime()) ? iso : format.format(date);
  return <time dateTime={iso}>{text}</time>;
}

function StatusBadge({ status }: { status: ApiKeyResponse['status'] }) {
  return <span className={`badge badge-${status === 'Active' ? 'active' : 'revoked'}`}>{status}</span>;
}

/** The caller's keys, masked, with an inline confirmation before revoking one. */
export function KeyList() {
  const headingId = useId();
  const keysQuery = useKeys();
  const revokeMutation = useRevokeKey();
  const [confirmingId, setConfirmingId] = useState<string | null>(null);
  // After "Cancel", focus goes back to the row's Revoke button that the confirmation replaced.
  const [returnFocusId, setReturnFocusId] = useState<string | null>(null);
  const [announcement, setAnnouncement] = useState('');

  const startConfirm = (key: ApiKeyResponse) => {
    revokeMutation.reset();
    setAnnouncement('');
    setReturnFocusId(null);
    setConfirmingId(key.id);
  };

  const cancelConfirm = (key: ApiKeyResponse) => {
    setConfirmingId(null);
    setReturnFocusId(key.id);
  };

  const revoke = (key: ApiKeyResponse) => {
    revokeMutation.mutate(key.id, {
      onSuccess: () => setAnnouncement(`${key.name} was revoked. It stops working at once.`),
      onSettled: () => setConfirmingId(null),
    });
  };

  let body;
  if (keysQuery.isPending) {
    body = (
      <p className="muted" role="status">
        Loading your keys…
      </p>
    );
  } else if (keysQuery.isError) {
    body = (
      <LoadError message={`Could not load your keys: ${keysQuery.error.message}`} retrying={keysQuery.isFetching} onRetry={() => void keysQuery.refetch()} />
    );
  } else if (keysQuery.data.length === 0) {
    body = <p className="muted">No API keys yet.</p>;
  } else {
    body = (
      <div className="table-scroll">
        <table className="data-table" aria-labelledby={headingId}>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Key</th>
              <th scope="col">Created</th>
              <th scope="col">Last used</th>
              <th scope="col">Status</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {keysQuery.data.map((key) => (
              <tr key={key.id}>
                <th scope="row" className="data-table-name">
                  {key.name}
                </th>
                <td>
                  <code className="mono">{key.token}</code>
                </td>
                <td>
                  <FormattedDate iso={key.createdAt} format={dateFormat} />
                </td>
                <td>{key.lastUsedAt ? <FormattedDate iso={key.lastUsedAt} format={dateTimeFormat} /> : 'Never'}</td>
                <td>
                  <StatusBadge status={key.status} />
                </td>
                <td className="data-table-actions">
                  {key.status !== 'Active' ? null : confirmingId === key.id ? (
                    <div className="inline-confirm" role="group" aria-label={`Revoke ${key.name}?`}>
                      <span className="inline-confirm-question">Revoke {key.name}?</span>
                      <Button variant="danger" busy={revokeMutation.isPending} onClick={() => revoke(key)}>
                        Revoke
                      </Button>
                      <Button
                        variant="secondary"
                        autoFocus
                        disabled={revokeMutation.isPending}
                        onClick={() => cancelConfirm(key)}
                      >
                        Cancel
                      </Button>
                    </div>
                  ) : (
                    <Button
                      variant="secondary"
                      autoFocus={returnFocusId === key.id}
                      onClick={() => startConfirm(key)}
                    >
                      Revoke<span className="visually-hidden"> {key.name}</span>
                    </Button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    );
  }

  return (
    <section className="card" aria-labelledby={headingId}>
      <h2 id={headingId} className="card-title">
        Your keys
      </h2>
      {revokeMutation.isError ? <Alert>Revoking the key failed: {revokeMutation.error.message}</Alert> : null}
      <p className="visually-hidden" role="status">
        {announcement}
      </p>
      {body}
    </section>
  );
}
