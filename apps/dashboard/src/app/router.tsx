import { useLocation } from '../lib/router';
import { AppShell } from './app-shell';
import { RequireAuth, GuestOnly } from './routes/guards';
import { NotFoundRoute } from './routes/not-found-route';
import { OverviewRoute } from './routes/overview-route';
import { RegisterRoute } from './routes/register-route';
import { SectionPlaceholderRoute } from './routes/section-placeholder-route';
import { SignInRoute } from './routes/sign-in-route';
import { findSection } from './sections';

export function AppRouter() {
  const { pathname } = useLocation();

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

  const section = findSection(pathname);
  if (!section) return <NotFoundRoute />;

  return (
    <RequireAuth>
      {(user) => (
        <AppShell user={user} activePath={section.path}>
          {section.path === '/' ? <OverviewRoute user={user} /> : <SectionPlaceholderRoute title={section.label} />}
        </AppShell>
      )}
    </RequireAuth>
  );
}
