import { useId, useState } from 'react';
import type { ApiKeyResponse } from '@switchyard/shared-dto';

import { Alert } from '../../../components/ui/alert';
import { Button } from '../../../components/ui/button';
import { FormattedDate } from '../../../components/ui/formatted-date';
import { formatMoney } from '../../../lib/money';
import { useRevokeKey } from '../api/revoke-key';
import { describeLimits } from '../lib/key-limits';
import { KeyEditForm } from './key-edit-form';

interface KeyCardProps {
  apiKey: ApiKeyResponse;
  onAnnounce: (message: string) => void;
}

const BADGE: Record<ApiKeyResponse['status'], string> = {
  Active: 'badge-active',
  Expired: 'badge-revoked',
  Revoked: 'badge-revoked',
};

/** One key: masked, its spend, limits and dates; edit (name and limits) and revoke with a confirmation. */
export function KeyCard({ apiKey, onAnnounce }: KeyCardProps) {
  const headingId = useId();
  const revokeMutation = useRevokeKey();
  const [mode, setMode] = useState<'view' | 'edit' | 'confirm'>('view');
  // After Cancel or Save, focus goes back to the button the form or confirmation replaced.
  const [returnFocus, setReturnFocus] = useState<'edit' | 'revoke' | null>(null);
  const live = apiKey.status !== 'Revoked';

  const revoke = () =>
    revokeMutation.mutate(apiKey.id, {
      onSuccess: () => onAnnounce(`${apiKey.name} was revoked. It stops working at once.`),
      onSettled: () => setMode('view'),
    });

  return (
    <article className="app-card key-card" aria-labelledby={headingId}>
      <div className="app-card-header">
        <h3 id={headingId} className="app-card-title">
          {apiKey.name}
        </h3>
        <span className={`badge ${BADGE[apiKey.status]}`}>{apiKey.status}</span>
      </div>
      {apiKey.dashboard ? (
        <p className="muted small">
          The key the Playground and Models pages call through while you are signed in. Its secret is never shown, to
          you or anyone; set its limits here like any key&apos;s.
        </p>
      ) : null}
      <dl className="details">
        <div>
          <dt>Key</dt>
          <dd>
            <code className="mono">{apiKey.dashboard ? 'Used by the dashboard only' : apiKey.token}</code>
          </dd>
        </div>
        <div>
          <dt>Spent this month</dt>
          <dd>{formatMoney(apiKey.spend.thisMonth)}</dd>
        </div>
        <div>
          <dt>Spent in all</dt>
          <dd>{formatMoney(apiKey.spend.allTime)}</dd>
        </div>
        <div>
          <dt>Limits</dt>
          <dd>{describeLimits(apiKey, formatMoney)}</dd>
        </div>
        <div>
          <dt>Created</dt>
          <dd>
            <FormattedDate iso={apiKey.createdAt} />
          </dd>
        </div>
        <div>
          <dt>Last used</dt>
          <dd>{apiKey.lastUsedAt ? <FormattedDate iso={apiKey.lastUsedAt} format="dateTime" /> : 'Never'}</dd>
        </div>
        <div>
          <dt>{apiKey.status === 'Expired' ? 'Expired' : 'Expires'}</dt>
          <dd>{apiKey.expiresAt ? <FormattedDate iso={apiKey.expiresAt} format="dateTime" /> : 'Never'}</dd>
        </div>
      </dl>
      {revokeMutation.isError ? <Alert>Revoking the key did not work: {revokeMutation.error.message}</Alert> : null}
      {mode === 'edit' ? (
        <KeyEditForm
          apiKey={apiKey}
          onDone={(saved) => {
            setMode('view');
            setReturnFocus('edit');
            if (saved) onAnnounce(`${apiKey.name} was saved.`);
          }}
        />
      ) : (
        <div className="app-card-actions">
          {mode === 'confirm' ? (
            <div className="inline-confirm" role="group" aria-label={`Revoke ${apiKey.name}?`}>
              <span className="inline-confirm-question">Revoke {apiKey.name}? It stops working at once.</span>
              <Button variant="danger" busy={revokeMutation.isPending} onClick={revoke}>
                Revoke
              </Button>
              <Button
                variant="secondary"
                autoFocus
                disabled={revokeMutation.isPending}
                onClick={() => {
                  setMode('view');
                  setReturnFocus('revoke');
                }}
              >
                Cancel
              </Button>
            </div>
          ) : live ? (
            <>
              <Button variant="secondary" autoFocus={returnFocus === 'edit'} onClick={() => setMode('edit')}>
                Rename or set limits<span className="visually-hidden"> of {apiKey.name}</span>
              </Button>
              <Button
                variant="secondary"
                autoFocus={returnFocus === 'revoke'}
                onClick={() => {
                  revokeMutation.reset();
                  setMode('confirm');
                }}
              >
                Revoke<span className="visually-hidden"> {apiKey.name}</span>
              </Button>
            </>
          ) : null}
        </div>
      )}
    </article>
  );
}
