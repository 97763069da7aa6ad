import { useCallback, useState } from 'react';

import { Alert } from '../../components/ui/alert';
import { Button } from '../../components/ui/button';
import { Logo } from '../../components/ui/logo';
import { BalanceCard } from '../../features/billing/components/balance-card';
import { PaymentReturn } from '../../features/billing/components/payment-return';
import { RedeemGiftCardForm } from '../../features/billing/components/redeem-gift-card-form';
import { TopUpForm } from '../../features/billing/components/top-up-form';
import { useConsent } from '../../features/consents/api/get-consent';
import { ConsentLimitsForm } from '../../features/consents/components/consent-limits-form';
import { type AppPopupTarget, messageOrigin, notifyOpener } from '../../lib/app-popup';
import { formatMoney } from '../../lib/money';
import { useDocumentTitle } from '../../lib/router';

interface AppPopupRouteProps {
  kind: 'billing' | 'caps';
  target: AppPopupTarget;
  /** Back from a checkout page. */
  sessionId: string | null;
}

/**
 * Billing or one app's caps, opened by an app as a popup (docs/sdk.md#popups), outside the shell. When the user
 * added funds or saved the caps, the app is told (postMessage to its registered redirect URI's origin only: the
 * one it named must be among its redirect URIs) and the popup closes, so the app can retry the call it was making.
 */
export function AppPopupRoute({ kind, target, sessionId }: AppPopupRouteProps) {
  useDocumentTitle(kind === 'billing' ? 'Add funds' : 'Spending caps');
  const consentQuery = useConsent(target.clientId);
  const [finished, setFinished] = useState(false);
  const consent = consentQuery.data;
  const registered =
    consent !== undefined &&
    consent.redirectUris.includes(target.redirectUri) &&
    messageOrigin(target.redirectUri) !== null;

  const finish = useCallback(() => {
    if (registered && notifyOpener(target.redirectUri, { kind, clientId: target.clientId })) setFinished(true);
  }, [registered, target, kind]);

  let body;
  if (consentQuery.isPending) {
    body = (
      <p className="muted" role="status">
        Loading…
      </p>
    );
  } else if (!consent) {
    body = (
      <Alert>
        {kind === 'caps'
          ? 'You have not authorized this app, so it has no caps to change.'
          : 'You have not authorized the app that opened this page.'}{' '}
        Nothing will be sent back to it.
      </Alert>
    );
  } else {
    body = (
      <>
        <h1 className="auth-title">
          {kind === 'billing' ? `Add funds for ${consent.clientName}` : `What ${consent.clientName} may spend`}
        </h1>
        {registered ? null : (
          <Alert>
            This page was opened from an address {consent.clientName} did not register: it will not be told when you are
            done.
          </Alert>
        )}
        {finished ? (
          <Alert tone="info">
            <p>Done. You can close this window and go back to {consent.clientName}.</p>
          </Alert>
        ) : null}
        {kind === 'billing' ? (
          <>
            {sessionId ? <PaymentReturn key={sessionId} sessionId={sessionId} onPaid={finish} /> : null}
            <BalanceCard />
            <TopUpForm />
            <RedeemGiftCardForm onRedeemed={finish} />
          </>
        ) : (
          <>
            <p className="muted">
              Spent this month: {formatMoney(consent.spentThisMonth)}. Raise or remove a cap to let the app go on; blank
              removes one.
            </p>
            <ConsentLimitsForm
              key={consent.clientId}
              consent={consent}
              onDone={(saved) => (saved ? finish() : window.close())}
            />
          </>
        )}
        <div className="button-row">
          <Button variant="secondary" onClick={finish} disabled={!registered}>
            Back to {consent.clientName}
          </Button>
        </div>
      </>
    );
  }

  return (
    <main className="center-page">
      <div className="card narrow consent-page">
        <div className="auth-brand">
          <Logo />
        </div>
        {body}
      </div>
    </main>
  );
}
