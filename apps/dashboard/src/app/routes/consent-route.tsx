import { useMemo } from 'react';
import type { UserResponse } from '@switchyard/shared-dto';

import { Alert } from '../../components/ui/alert';
import { Button } from '../../components/ui/button';
import { Logo } from '../../components/ui/logo';
import { useLogout } from '../../features/auth/api/logout';
import { readAuthorizationParams } from '../../features/authorize/api/authorization-params';
import { ConsentPanel } from '../../features/authorize/components/consent-panel';
import { notifyOpener } from '../../lib/app-popup';
import { navigate, useDocumentTitle, useLocation } from '../../lib/router';

/** True when another page shows this one in a frame (clickjacking); the server's X-Frame-Options is the real guard. */
function isFramed(): boolean {
  try {
    return window.self !== window.top;
  } catch {
    return true;
  }
}

/**
 * /consent: where /oauth2/authorize sends a signed-in user who must decide. Outside the app shell, so nothing
 * else on the page competes with the question. The decision's answer is a full page load to the app.
 */
export function ConsentRoute({ user }: { user: UserResponse }) {
  useDocumentTitle('Authorize app');
  const { pathname, search, searchParams } = useLocation();
  const read = useMemo(() => readAuthorizationParams(searchParams), [searchParams]);
  // "Not you?": sign out, then sign in again and come back to this very request.
  const logoutMutation = useLogout({
    onSignedOut: () => navigate(`/signin?next=${encodeURIComponent(pathname + search)}`, { replace: true }),
  });

  let content;
  if (isFramed()) {
    content = <Alert>For your safety this page cannot be shown inside another site. Open it in its own tab.</Alert>;
  } else if (!read.ok) {
    content = (
      <>
        <h1 className="auth-title">This request cannot be completed</h1>
        <Alert>{read.problem}</Alert>
      </>
    );
  } else {
    content = (
      <ConsentPanel
        params={read.params}
        onDecided={(redirectTo) => {
          // Opened by the app as a popup (display=popup): the answer goes to the opener, at the origin of the
          // redirect URI the server answered with (a registered one) only, and the popup closes (docs/sdk.md).
          if (read.params.display === 'popup' && notifyOpener(redirectTo, { kind: 'authorize', url: redirectTo }))
            return;
          // A full page load: the redirect URI is the app's, on another origin or a custom scheme.
          window.location.assign(redirectTo);
        }}
      />
    );
  }

  return (
    <main className="center-page">
      <div className="card narrow consent-page">
        <div className="auth-brand">
          <Logo />
        </div>
        {content}
        <div className="consent-account">
          <span className="muted">
            Signed in as <strong>{user.email}</strong>.
          </span>{' '}
          <Button
            variant="ghost"
            className="button-link"
            busy={logoutMutation.isPending}
            onClick={() => logoutMutation.mutate()}
          >
            Not you?
          </Button>
        </div>
        {logoutMutation.isError ? <Alert>Signing out failed: {logoutMutation.error.message}</Alert> : null}
      </div>
    </main>
  );
}
