import { useEffect, useRef } from 'react';
import type { ReactNode } from 'react';
import type { UserResponse } from '@switchyard/shared-dto';

import { Alert } from '../components/ui/alert';
import { Button } from '../components/ui/button';
import { Logo } from '../components/ui/logo';
import { useLogout } from '../features/auth/api/logout';
import { forgetGatewayKey } from '../features/gateway-key/lib/key-store';
import { Link, navigate } from '../lib/router';
import { canSee, SHELL_SECTIONS } from './sections';

interface AppShellProps {
  user: UserResponse;
  activePath: string;
  children: ReactNode;
}

export function AppShell({ user, activePath, children }: AppShellProps) {
  const navRef = useRef<HTMLUListElement>(null);
  // On a narrow screen the nav is one row that scrolls sideways: bring the current section into view (centred),
  // moving only the row, never the page.
  useEffect(() => {
    const list = navRef.current;
    const current = list?.querySelector<HTMLElement>('[aria-current="page"]');
    if (!list || !current || list.scrollWidth <= list.clientWidth) return;
    list.scrollLeft = current.offsetLeft - list.offsetLeft - (list.clientWidth - current.offsetWidth) / 2;
  }, [activePath]);

  const logoutMutation = useLogout({
    onSignedOut: () => {
      forgetGatewayKey();
      navigate('/signin', { replace: true });
    },
  });

  return (
    <div className="shell">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <aside className="shell-sidebar">
        <Link href="/" className="shell-brand" aria-label="Switchyard overview">
          <Logo />
        </Link>
        <nav aria-label="Sections">
          <ul className="shell-nav" ref={navRef}>
            {SHELL_SECTIONS.filter((section) => canSee(section, user.role)).map((section) => (
              <li key={section.path}>
                <Link
                  href={section.path}
                  className="shell-nav-link"
                  aria-current={section.path === activePath ? 'page' : undefined}
                >
                  {section.label}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
      </aside>
      <div className="shell-body">
        <header className="shell-header">
          <span className="shell-user" title={user.email}>
            {user.email}
          </span>
          <Button variant="secondary" busy={logoutMutation.isPending} onClick={() => logoutMutation.mutate()}>
            Sign out
          </Button>
        </header>
        {logoutMutation.isError ? (
          <div className="shell-notice">
            <Alert>Signing out failed: {logoutMutation.error.message}</Alert>
          </div>
        ) : null}
        <main id="main" className="shell-main" tabIndex={-1}>
          {children}
        </main>
      </div>
    </div>
  );
}
