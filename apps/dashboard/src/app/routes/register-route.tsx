import { useQueryClient } from '@tanstack/react-query';

import { RegisterForm } from '../../features/auth/components/register-form';
import { safeNextPath, useDocumentTitle, useLocation } from '../../lib/router';
import { AuthPage } from './auth-page';
import { completeSignIn, withNext } from './complete-sign-in';

export function RegisterRoute() {
  useDocumentTitle('Create account');
  const queryClient = useQueryClient();
  const next = safeNextPath(useLocation().searchParams.get('next'));

  return (
    <AuthPage title="Create your account" subtitle="One account for API keys, OAuth apps and usage.">
      <RegisterForm
        signInHref={withNext('/signin', next)}
        onSignedIn={(session) => completeSignIn(queryClient, session.user, next)}
      />
    </AuthPage>
  );
}
