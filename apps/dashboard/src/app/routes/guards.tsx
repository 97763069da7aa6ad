import type { ReactNode } from 'react';
import type { UserResponse } from '@switchyard/shared-dto';

import { Alert } from '../../components/ui/alert';
import { Button } from '../../components/ui/button';
import { LoadingScreen } from '../../components/ui/loading-screen';
import { useMe } from '../../features/auth/api/get-me';
import { Redirect, useLocation } from '../../lib/router';

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

/** Sign-in and registration pages: a visitor who is already signed in goes to the overview. */
export function GuestOnly({ children }: { children: ReactNode }) {
  const me = useMe();

  if (me.data) return <Redirect to="/" />;
  // If the session check itself fails, still offer the form: submitting it reports a real error.
  if (me.data === null || me.isError) return children;
  return <LoadingScreen />;
}
