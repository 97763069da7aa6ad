import { useEffect, useState } from 'react';

import { Alert } from '../../components/ui/alert';
import { tokenFromFragment, useVerifyEmail } from '../../features/auth/api/recovery';
import { ForgotPasswordForm } from '../../features/auth/components/forgot-password-form';
import { ResetPasswordForm } from '../../features/auth/components/reset-password-form';
import { Link, useDocumentTitle } from '../../lib/router';
import { AuthPage } from './auth-page';

/**
 * The token a mail link carries, read once from the fragment and then taken out of the address bar (and the
 * history), so it is not left behind on a shared computer.
 */
function useFragmentToken(): string {
  const [token] = useState(() => tokenFromFragment(window.location.hash));
  useEffect(() => {
    if (window.location.hash) window.history.replaceState(window.history.state, '', window.location.pathname);
  }, []);
  return token;
}

export function ForgotPasswordRoute() {
  useDocumentTitle('Forgot your password?');
  return (
    <AuthPage title="Forgot your password?" subtitle="We mail a link that lets you choose a new one.">
      <ForgotPasswordForm />
    </AuthPage>
  );
}

export function ResetPasswordRoute() {
  useDocumentTitle('Choose a new password');
  const token = useFragmentToken();
  return (
    <AuthPage title="Choose a new password" subtitle="Every session of the account is signed out.">
      <ResetPasswordForm token={token} />
    </AuthPage>
  );
}

export function VerifyEmailRoute() {
  useDocumentTitle('Verify your address');
  const token = useFragmentToken();
  const verify = useVerifyEmail();
  const { mutate } = verify;
  useEffect(() => {
    if (token) mutate({ token });
  }, [token, mutate]);
  return (
    <AuthPage title="Verify your address" subtitle="Where password resets, receipts and budget alerts go.">
      {!token ? (
        <Alert>This page needs the link from the verification mail.</Alert>
      ) : verify.isSuccess ? (
        <p role="status">
          <strong>{verify.data.email}</strong> is verified. <Link href="/">Go to the dashboard</Link>
        </p>
      ) : verify.isError ? (
        <Alert>
          {verify.error.message} <Link href="/settings">Settings</Link>
        </Alert>
      ) : (
        <p role="status">Verifying…</p>
      )}
    </AuthPage>
  );
}
