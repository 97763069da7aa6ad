import { useId, useState } from 'react';
import { SCOPE_DESCRIPTIONS } from '@switchyard/shared-dto';
import type { ConsentResponse, ConsentSponsor } from '@switchyard/shared-dto';

import { Alert } from '../../../components/ui/alert';
import { Button } from '../../../components/ui/button';
import { FormattedDate } from '../../../components/ui/formatted-date';
import type { Announce } from '../../../components/ui/list-card';
import { formatMoney } from '../../../lib/money';
import { useRevokeConsent } from '../api/revoke-consent';
import { ConsentLimitsForm } from './consent-limits-form';

type Mode = 'view' | 'editing' | 'confirming';

interface ConsentCardProps {
  consent: ConsentResponse;
  onAnnounce: Announce;
  /** Open with the caps form (the deep link /authorized-apps/{clientId}). */
  startEditing?: boolean;
}

function Cap({ value }: { value: number | null }) {
  return <>{value === null ? 'None' : formatMoney(value)}</>;
}

/**
 * Sponsored credits (docs/earnings.md): what the app still pays of the user's calls through it, of the allowance it
 * gave them, and until when; or that the allowance is used up.
 */
function SponsorLine({ clientName, sponsor }: { clientName: string; sponsor: ConsentSponsor }) {
  return (
    <p className="consent-sponsored" data-testid="consent-sponsor">
      {sponsor.left > 0 ? (
        <>
          {clientName} pays for your calls: <strong>{formatMoney(sponsor.left)}</strong> of{' '}
          {formatMoney(sponsor.allowance)} left
          {sponsor.endsAt ? (
            <>
              {' '}
              until <FormattedDate iso={sponsor.endsAt} />
            </>
          ) : null}
          .
        </>
      ) : (
        <>
          {clientName} paid for your calls: your {formatMoney(sponsor.allowance)} allowance is used up, so they come
          from your budget now.
        </>
      )}
    </p>
  );
}

/** One app the user authorized: what it may do, what it spent, its caps, and the way to cut it off. */
export function ConsentCard({ consent, onAnnounce, startEditing = false }: ConsentCardProps) {
  const headingId = useId();
  const [mode, setMode] = useState<Mode>(startEditing ? 'editing' : 'view');
  const [returnFocus, setReturnFocus] = useState<'edit' | 'revoke' | null>(null);
  const revokeMutation = useRevokeConsent({
    onRevoked: () =>
      onAnnounce(`${consent.clientName} no longer has access. Its tokens stop working at once.`, { removed: true }),
  });

  const finishEditing = (saved: boolean) => {
    setMode('view');
    setReturnFocus('edit');
    if (saved) onAnnounce(`Spending caps for ${consent.clientName} saved.`);
  };

  const cancelRevoke = () => {
    setMode('view');
    setReturnFocus('revoke');
  };

  const question = `Revoke access for ${consent.clientName}? Its tokens stop working at once.`;

  return (
    <article className="app-card" aria-labelledby={headingId}>
      <div className="app-card-header">
        <h3 id={headingId} className="app-card-title">
          {consent.clientName}
        </h3>
      </div>
      <div>
        <p className="muted">It may:</p>
        <ul className="scope-list">
          {consent.scopes.map((scope) => (
            <li key={scope}>{SCOPE_DESCRIPTIONS[scope] ?? scope}</li>
          ))}
        </ul>
      </div>
      <dl className="details">
        <div>
          <dt>Granted</dt>
          <dd>
            <FormattedDate iso={consent.grantedAt} />
          </dd>
        </div>
        <div>
          <dt>Last used</dt>
          <dd>{consent.lastUsedAt ? <FormattedDate iso={consent.lastUsedAt} format="dateTime" /> : 'Never'}</dd>
        </div>
        <div>
          <dt>Spent this month</dt>
          <dd>{formatMoney(consent.spentThisMonth)}</dd>
        </div>
        <div>
          <dt>Markup</dt>
          <dd>
            {consent.markupPercent > 0 ? `${consent.markupPercent}% on top of the provider's price` : 'None'}
            {consent.pendingMarkupPercent !== null
              ? ` (the app asks ${consent.pendingMarkupPercent}%; it applies only if you authorize it again)`
              : ''}
          </dd>
        </div>
        <div>
          <dt>Monthly cap</dt>
          <dd>
            <Cap value={consent.limits.monthly} />
          </dd>
        </div>
        <div>
          <dt>Maximum per request</dt>
          <dd>
            <Cap value={consent.limits.perRequest} />
          </dd>
        </div>
      </dl>
      {consent.sponsor ? <SponsorLine clientName={consent.clientName} sponsor={consent.sponsor} /> : null}
      {revokeMutation.isError ? <Alert>Revoking failed: {revokeMutation.error.message}</Alert> : null}
      {mode === 'editing' ? (
        <ConsentLimitsForm consent={consent} onDone={finishEditing} />
      ) : (
        <div className="app-card-actions">
          {mode === 'confirming' ? (
            <div className="inline-confirm" role="group" aria-label={question}>
              <span className="inline-confirm-question">{question}</span>
              <Button
                variant="danger"
                busy={revokeMutation.isPending}
                onClick={() => revokeMutation.mutate(consent.clientId, { onError: () => setMode('view') })}
              >
                Revoke
              </Button>
              <Button variant="secondary" autoFocus disabled={revokeMutation.isPending} onClick={cancelRevoke}>
                Cancel
              </Button>
            </div>
          ) : (
            <>
              <Button variant="secondary" autoFocus={returnFocus === 'edit'} onClick={() => setMode('editing')}>
                Edit caps<span className="visually-hidden"> for {consent.clientName}</span>
              </Button>
              <Button
                variant="secondary"
                autoFocus={returnFocus === 'revoke'}
                onClick={() => {
                  revokeMutation.reset();
                  setMode('confirming');
                }}
              >
                Revoke<span className="visually-hidden"> {consent.clientName}</span>
              </Button>
            </>
          )}
        </div>
      )}
    </article>
  );
}
