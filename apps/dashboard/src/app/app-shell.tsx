import { useRef, useState } from 'react';
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
  // On a narrow screen the sections are behind a Menu button (docs/dashboard.md, "On a phone"): it opens them as a
  // list, a section's link closes it, so does Escape (giving the focus back to the button).
  // Open for the section it was opened on: going to another section closes it.
  const [openOn, setOpenOn] = useState<string | null>(null);
  const menuOpen = openOn === activePath;
  const setMenuOpen = (open: boolean) => setOpenOn(open ? activePath : null);
  const menuButton = useRef<HTMLButtonElement>(null);
  const sections = SHELL_SECTIONS.filter((section) => canSee(section, user.role));
  const current = sections.find((section) => section.path === activePath);

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
      <aside
        className="shell-sidebar"
        data-menu-open={menuOpen || undefined}
        onKeyDown={(event) => {
          if (event.key !== 'Escape' || !menuOpen) return;
          setMenuOpen(false);
          menuButton.current?.focus();
        }}
      >
        <Link href="/" className="shell-brand" aria-label="Switchyard overview">
          <Logo />
        </Link>
        <span className="shell-current" aria-hidden="true">
          {current?.label}
        </span>
        <button
          ref={menuButton}
          type="button"
          className="shell-menu-button"
          aria-expanded={menuOpen}
          aria-controls="shell-sections"
          onClick={() => setMenuOpen(!menuOpen)}
        >
          <span className="shell-menu-icon" aria-hidden="true" />
          Menu
        </button>
        <nav aria-label="Sections" id="shell-sections">
          <ul className="shell-nav">
            {sections.map((section) => (
              <li key={section.path}>
                <Link
                  href={section.path}
                  className="shell-nav-link"
                  aria-current={section.path === activePath ? 'page' : undefined}
                  onClick={() => setMenuOpen(false)}
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
