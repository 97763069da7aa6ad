import type { UserResponse } from '@switchyard/shared-dto';

import { useLocation } from '../lib/router';
import { AppShell } from './app-shell';
import { readAppPopupTarget } from '../lib/app-popup';
import { ForgotPasswordRoute, ResetPasswordRoute, VerifyEmailRoute } from './routes/account-recovery-routes';
import { AdminConsoleRoute } from './routes/admin-console-route';
import { AdminGiftCardsRoute } from './routes/admin-gift-cards-route';
import { AppPopupRoute } from './routes/app-popup-route';
import { BillingRoute } from './routes/billing-route';
import { EarningsRoute } from './routes/earnings-route';
import { RequireAuth, GuestOnly } from './routes/guards';
import { AuthorizedAppsRoute } from './routes/authorized-apps-route';
import { ConsentRoute } from './routes/consent-route';
import { DocsRoute } from './routes/docs-route';
import { KeysRoute } from './routes/keys-route';
import { ModelsRoute } from './routes/models-route';
import { NotFoundRoute } from './routes/not-found-route';
import { OAuthAppsRoute } from './routes/oauth-apps-route';
import { OverviewRoute } from './routes/overview-route';
import { PlaygroundRoute } from './routes/playground-route';
import { ProfileRoute } from './routes/profile-route';
import { RegisterRoute } from './routes/register-route';
import { RequestsRoute } from './routes/requests-route';
import { SectionPlaceholderRoute } from './routes/section-placeholder-route';
import { SettingsRoute } from './routes/settings-route';
import { SignInRoute } from './routes/sign-in-route';
import { SpacesRoute } from './routes/spaces-route';
import { UsageRoute } from './routes/usage-route';
import { canSee, findSection } from './sections';
import type { ShellSection } from './sections';

/** The page for a shell section; sections nobody has built yet get the placeholder. */
function renderSection(section: ShellSection, user: UserResponse) {
  switch (section.path) {
    case '/':
      return <OverviewRoute user={user} />;
    case '/keys':
      return <KeysRoute />;
    case '/apps':
      return <OAuthAppsRoute />;
    case '/earnings':
      return <EarningsRoute />;
    case '/authorized-apps':
      return <AuthorizedAppsRoute />;
    case '/usage':
      return <UsageRoute />;
    case '/requests':
      return <RequestsRoute />;
    case '/models':
      return <ModelsRoute user={user} />;
    case '/playground':
      return <PlaygroundRoute user={user} />;
    case '/billing':
      return <BillingRoute />;
    case '/docs':
      return <DocsRoute />;
    case '/admin':
      return <AdminConsoleRoute user={user} />;
    case '/admin/gift-cards':
      return <AdminGiftCardsRoute />;
    case '/spaces':
      return <SpacesRoute user={user} />;
    case '/settings':
      return <SettingsRoute user={user} />;
    default:
      return <SectionPlaceholderRoute title={section.label} />;
  }
}

export function AppRouter() {
  const { pathname, searchParams } = useLocation();

  if (pathname === '/signin') {
    return (
      <GuestOnly>
        <SignInRoute />
      </GuestOnly>
    );
  }
  if (pathname === '/register') {
    return (
      <GuestOnly>
        <RegisterRoute />
      </GuestOnly>
    );
  }

  // Mail links and the way to them: public, outside the shell (docs/mail.md).
  if (pathname === '/forgot-password') return <ForgotPasswordRoute />;
  if (pathname === '/reset-password') return <ResetPasswordRoute />;
  if (pathname === '/verify-email') return <VerifyEmailRoute />;

  // The OAuth consent page: signed in, but outside the shell (docs/decisions.md#accounts-and-sessions).
  if (pathname === '/consent') {
    return <RequireAuth>{(user) => <ConsentRoute user={user} />}</RequireAuth>;
  }

  // Billing or one app's caps opened by an app as a popup, and the deep link to one app's caps (docs/sdk.md).
  const appCaps = /^\/authorized-apps\/([^/]+)\/?$/.exec(pathname);
  const popupTarget = pathname === '/billing' || appCaps ? readAppPopupTarget(searchParams) : null;
  if (popupTarget) {
    const kind = appCaps ? 'caps' : 'billing';
    return (
      <RequireAuth>
        {() => (
          <AppPopupRoute
            kind={kind}
            target={appCaps ? { ...popupTarget, clientId: decodeURIComponent(appCaps[1]) } : popupTarget}
            sessionId={searchParams.get('session_id')}
          />
        )}
      </RequireAuth>
    );
  }
  if (appCaps) {
    return (
      <RequireAuth>
        {(user) => (
          <AppShell user={user} activePath="/authorized-apps">
            <AuthorizedAppsRoute focusClientId={decodeURIComponent(appCaps[1])} />
          </AppShell>
        )}
      </RequireAuth>
    );
  }

  // A public profile: outside the shell, and nobody needs to sign in to see it.
  const profile = /^\/u\/([^/]+)\/?$/.exec(pathname);
  if (profile) return <ProfileRoute handle={profile[1]} />;

  const section = findSection(pathname);
  if (!section) return <NotFoundRoute />;

  return (
    <RequireAuth>
      {(user) =>
        // A section of another role does not exist for this user.
        canSee(section, user.role) ? (
          <AppShell user={user} activePath={section.path}>
            {renderSection(section, user)}
          </AppShell>
        ) : (
          <NotFoundRoute />
        )
      }
    </RequireAuth>
  );
}
