import { useId, useState } from 'react';
import { SCOPE_DESCRIPTIONS } from '@switchyard/shared-dto';
import type { OAuthClientResponse } from '@switchyard/shared-dto';

import { Alert } from '../../../components/ui/alert';
import { Button } from '../../../components/ui/button';
import { CodeBlock } from '../../../components/ui/code-block';
import { CopyField } from '../../../components/ui/copy-field';
import { FormattedDate } from '../../../components/ui/formatted-date';
import type { Announce } from '../../../components/ui/list-card';
import { useOAuthAppAction } from '../api/app-action';
import { useDeleteOAuthApp } from '../api/delete-oauth-app';
import { authorizeUrl, pkceSnippet, sdkSnippet } from '../lib/authorize-snippet';
import { AppUsage } from './app-usage';
import { EditAppForm } from './edit-app-form';
import { MarkupForm } from './markup-form';
import { SponsorPanel } from './sponsor-panel';

type Confirming = 'deactivate' | 'delete' | 'rotate' | null;

const QUESTIONS = {
  deactivate: (name: string) => `Deactivate ${name}? Its tokens stop working at once.`,
  delete: (name: string) => `Delete ${name}? Everyone who authorized it loses access.`,
  rotate: (name: string) => `Replace the secret of ${name}? The current one stops working at once.`,
};
const CONFIRM_LABELS = { deactivate: 'Deactivate', delete: 'Delete', rotate: 'Replace secret' };

interface AppCardProps {
  app: OAuthClientResponse;
  /** Tells the list what happened, for the screen-reader announcement. */
  onAnnounce: Announce;
}

/** One registered app: what it is, its state, and what its owner can do with it. */
export function AppCard({ app, onAnnounce }: AppCardProps) {
  const headingId = useId();
  const usageId = useId();
  const [showUsage, setShowUsage] = useState(false);
  const [confirming, setConfirming] = useState<Confirming>(null);
  const [returnFocus, setReturnFocus] = useState<Confirming>(null);
  const [editing, setEditing] = useState(false);
  const [showCode, setShowCode] = useState(false);
  const [showSponsor, setShowSponsor] = useState(false);
  // The new secret lives in this component only, until the card goes away.
  const [newSecret, setNewSecret] = useState<string | null>(null);
  const deactivateMutation = useOAuthAppAction('deactivate');
  const reactivateMutation = useOAuthAppAction('reactivate');
  const rotateMutation = useOAuthAppAction('rotate-secret');
  const deleteMutation = useDeleteOAuthApp({
    onDeleted: () => onAnnounce(`${app.clientName} was deleted.`, { removed: true }),
  });
  const busy = deactivateMutation.isPending || deleteMutation.isPending || rotateMutation.isPending;
  const failure = deactivateMutation.error ?? deleteMutation.error ?? reactivateMutation.error ?? rotateMutation.error;
  const origin = window.location.origin;

  const startConfirm = (action: Exclude<Confirming, null>) => {
    deactivateMutation.reset();
    deleteMutation.reset();
    rotateMutation.reset();
    setReturnFocus(null);
    setConfirming(action);
  };

  const cancelConfirm = () => {
    setReturnFocus(confirming);
    setConfirming(null);
  };

  const confirm = () => {
    if (confirming === 'deactivate') {
      deactivateMutation.mutate(app.id, {
        onSuccess: () => onAnnounce(`${app.clientName} was deactivated. Its tokens stop working at once.`),
        onSettled: () => setConfirming(null),
      });
    } else if (confirming === 'rotate') {
      rotateMutation.mutate(app.id, {
        onSuccess: (rotated) => {
          setNewSecret(rotated.clientSecret ?? null);
          rotateMutation.reset();
          onAnnounce(`The secret of ${app.clientName} was replaced. Copy the new one now.`);
        },
        onSettled: () => setConfirming(null),
      });
    } else if (confirming === 'delete') {
      // On success the card leaves the list; only a failure brings the buttons back.
      deleteMutation.mutate(app.id, { onError: () => setConfirming(null) });
    }
  };

  return (
    <article className="app-card" aria-labelledby={headingId}>
      <div className="app-card-header">
        <h3 id={headingId} className="app-card-title">
          {app.clientName}
        </h3>
        <span className={`badge badge-${app.isActive ? 'active' : 'revoked'}`}>
          {app.isActive ? 'Active' : 'Deactivated'}
        </span>
      </div>
      <CopyField label="Client ID" value={app.clientId} />
      {newSecret ? (
        <Alert tone="info">
          <CopyField label="New client secret" value={newSecret} hint="Shown only now: copy it into your app." />
        </Alert>
      ) : null}
      {editing ? (
        <EditAppForm
          app={app}
          onDone={(saved) => {
            setEditing(false);
            if (saved) onAnnounce(`${app.clientName} was saved.`);
          }}
        />
      ) : null}
      <dl className="details">
        <div>
          <dt>Type</dt>
          <dd>{app.clientType === 'CONFIDENTIAL' ? 'Confidential (has a secret)' : 'Public (PKCE only)'}</dd>
        </div>
        <div>
          <dt>Authorized users</dt>
          <dd>{app.authorizedUserCount ?? 0}</dd>
        </div>
        <div>
          <dt>Created</dt>
          <dd>
            <FormattedDate iso={app.createdAt} />
          </dd>
        </div>
        <div>
          <dt>Redirect URIs</dt>
          <dd>
            <ul className="plain-list">
              {app.redirectUris.map((uri) => (
                <li key={uri}>
                  <code className="mono">{uri}</code>
                </li>
              ))}
            </ul>
          </dd>
        </div>
        <div>
          <dt>Scopes</dt>
          <dd>
            <ul className="plain-list">
              {app.scopes.map((scope) => (
                <li key={scope} title={SCOPE_DESCRIPTIONS[scope]}>
                  <code className="mono">{scope}</code>
                </li>
              ))}
            </ul>
          </dd>
        </div>
        <div>
          <dt>Consent</dt>
          <dd>{app.trusted ? 'Skipped: a first-party app an admin trusts' : 'Asked of every user'}</dd>
        </div>
        <div>
          <dt>Markup</dt>
          <dd>
            {app.markupPercent}%{app.usersOnOldRate > 0 ? ` (${app.usersOnOldRate} on an older rate)` : ''}
          </dd>
        </div>
      </dl>
      <MarkupForm app={app} onSaved={(message) => onAnnounce(message)} />
      {failure ? <Alert>That did not work: {failure.message}</Alert> : null}
      <div className="app-card-actions">
        {confirming ? (
          <div className="inline-confirm" role="group" aria-label={QUESTIONS[confirming](app.clientName)}>
            <span className="inline-confirm-question">{QUESTIONS[confirming](app.clientName)}</span>
            <Button variant="danger" busy={busy} onClick={confirm}>
              {CONFIRM_LABELS[confirming]}
            </Button>
            <Button variant="secondary" autoFocus disabled={busy} onClick={cancelConfirm}>
              Cancel
            </Button>
          </div>
        ) : (
          <>
            <Button
              variant="secondary"
              aria-expanded={showUsage}
              aria-controls={showUsage ? usageId : undefined}
              onClick={() => setShowUsage((shown) => !shown)}
            >
              {showUsage ? 'Hide usage' : 'Show usage'}
              <span className="visually-hidden"> of {app.clientName}</span>
            </Button>
            <Button variant="secondary" aria-expanded={showSponsor} onClick={() => setShowSponsor((shown) => !shown)}>
              {showSponsor ? 'Hide sponsored credits' : 'Sponsored credits'}
              <span className="visually-hidden"> of {app.clientName}</span>
            </Button>
            <Button variant="secondary" aria-expanded={editing} onClick={() => setEditing((shown) => !shown)}>
              Edit<span className="visually-hidden"> {app.clientName}</span>
            </Button>
            <Button variant="secondary" aria-expanded={showCode} onClick={() => setShowCode((shown) => !shown)}>
              {showCode ? 'Hide sign-in code' : 'Sign-in code'}
              <span className="visually-hidden"> of {app.clientName}</span>
            </Button>
            {app.clientType === 'CONFIDENTIAL' ? (
              <Button variant="secondary" autoFocus={returnFocus === 'rotate'} onClick={() => startConfirm('rotate')}>
                Replace secret<span className="visually-hidden"> of {app.clientName}</span>
              </Button>
            ) : null}
            {app.isActive ? (
              <Button
                variant="secondary"
                autoFocus={returnFocus === 'deactivate'}
                onClick={() => startConfirm('deactivate')}
              >
                Deactivate<span className="visually-hidden"> {app.clientName}</span>
              </Button>
            ) : (
              <Button
                variant="secondary"
                busy={reactivateMutation.isPending}
                onClick={() =>
                  reactivateMutation.mutate(app.id, {
                    onSuccess: () => onAnnounce(`${app.clientName} is active again.`),
                  })
                }
              >
                Reactivate<span className="visually-hidden"> {app.clientName}</span>
              </Button>
            )}
            <Button variant="secondary" autoFocus={returnFocus === 'delete'} onClick={() => startConfirm('delete')}>
              Delete<span className="visually-hidden"> {app.clientName}</span>
            </Button>
          </>
        )}
      </div>
      {showCode ? (
        <div className="stack">
          <CopyField label="Authorize URL" value={authorizeUrl(origin, app)} />
          <CodeBlock
            caption="PKCE sign-in in JavaScript"
            code={pkceSnippet(origin, app)}
            copyLabel="Copy the PKCE snippet"
          />
          <CodeBlock
            caption="Or with the SDK: sign-in, balance and a chat on the user's budget (docs/sdk.md)"
            code={sdkSnippet(origin, app)}
            copyLabel="Copy the SDK snippet"
          />
        </div>
      ) : null}
      {showSponsor ? <SponsorPanel app={app} onSaved={(message) => onAnnounce(message)} /> : null}
      {showUsage ? <AppUsage clientId={app.clientId} id={usageId} /> : null}
    </article>
  );
}
