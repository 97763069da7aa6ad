import { useQueryClient } from '@tanstack/react-query';

import { SignInForm } from '../../features/auth/components/sign-in-form';
import { safeNextPath, useDocumentTitle, useLocation } from '../../lib/router';
import { AuthPage } from './auth-page';
import { completeSignIn, withNext } from './complete-sign-in';

export function SignInRoute() {
  useDocumentTitle('Sign in');
  const queryClient = useQueryClient();
  const next = safeNextPath(useLocation().searchParams.get('next'));

  return (
    <AuthPage title="Sign in" subtitle="Welcome back to Switchyard.">
      <SignInForm
        registerHref={withNext('/register', next)}
        onSignedIn={(session) => completeSignIn(queryClient, session.user, next)}
      />
    </AuthPage>
  );
}
