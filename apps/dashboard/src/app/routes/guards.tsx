import type { ReactNode } from 'react';
import type { UserResponse } from '@switchyard/shared-dto';

import { Alert } from '../../components/ui/alert';
import { Button } from '../../components/ui/button';
import { LoadingScreen } from '../../components/ui/loading-screen';
import { useMe } from '../../features/auth/api/get-me';
import { isServerPath, Redirect, safeNextPath, useLocation } from '../../lib/router';

/** Renders its children with the signed-in user; signed-out visitors go to /signin?next=<here>. */
export function RequireAuth({ children }: { children: (user: UserResponse) => ReactNode }) {
  const { pathname, search } = useLocation();
  const me = useMe();

  if (me.data) return children(me.data);
  if (me.data === null) {
    const here = pathname + search;
    return <Redirect to={here === '/' ? '/signin' : `/signin?next=${encodeURIComponent(here)}`} />;
  }
  if (me.isError) {
    return (
      <div className="center-page">
        <div className="card narrow">
          <Alert>Could not load your account: {me.error.message}</Alert>
          <Button onClick={() => void me.refetch()} busy={me.isFetching}>
            Try again
          </Button>
        </div>
      </div>
    );
  }
  return <LoadingScreen />;
}

/**
 * Sign-in and registration pages: a visitor who is already signed in goes on to ?next (a same-origin path) or
 * the overview. A server path such as /oauth2/authorize gets a link rather than an automatic load: if the server
 * and this page ever disagreed about the session, an automatic one would bounce between them forever.
 */
export function GuestOnly({ children }: { children: ReactNode }) {
  const me = useMe();
  const next = safeNextPath(useLocation().searchParams.get('next'));

  if (me.data && isServerPath(next)) {
    return (
      <main className="center-page">
        <div className="card narrow">
          <p>
            You are signed in as <strong>{me.data.email}</strong>.
          </p>
          <a className="button button-primary button-block" href={next}>
            Continue
          </a>
        </div>
      </main>
    );
  }
  if (me.data) return <Redirect to={next} />;
  // If the session check itself fails, still offer the form: submitting it reports a real error.
  if (me.data === null || me.isError) return children;
  return <LoadingScreen />;
}
