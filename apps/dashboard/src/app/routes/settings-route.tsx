import { useQueryClient } from '@tanstack/react-query';
import type { UserResponse } from '@switchyard/shared-dto';

import { AlertsCard } from '../../features/account/components/alerts-card';
import { DeleteAccountForm } from '../../features/account/components/delete-account-form';
import { EmailCard } from '../../features/account/components/email-card';
import { NameForm } from '../../features/account/components/name-form';
import { PasswordForm } from '../../features/account/components/password-form';
import { SessionsCard } from '../../features/account/components/sessions-card';
import { resetToSignedOut, setSignedInUser } from '../../features/auth/api/get-me';
import { forgetGatewayKey } from '../../features/gateway-key/lib/key-store';
import { navigate, useDocumentTitle } from '../../lib/router';

export function SettingsRoute({ user }: { user: UserResponse }) {
  useDocumentTitle('Settings');
  const queryClient = useQueryClient();
  // After signing out everywhere or deleting the account, this tab is signed out like after Sign out.
  const signedOut = () => {
    resetToSignedOut(queryClient);
    forgetGatewayKey();
    navigate('/signin', { replace: true });
  };

  return (
    <>
      <div className="page-header">
        <h1 className="page-title">Settings</h1>
        <p className="muted">
          Your name, your address, alerts, your password, where you are signed in, and deleting the account.
        </p>
      </div>
      <NameForm user={user} onSaved={(updated) => setSignedInUser(queryClient, updated)} />
      <EmailCard user={user} />
      <AlertsCard />
      <PasswordForm />
      <SessionsCard onSignedOut={signedOut} />
      <DeleteAccountForm onDeleted={signedOut} />
    </>
  );
}
