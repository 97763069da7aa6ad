import type { ReactNode } from 'react';

import { Logo } from '../../components/ui/logo';

export function AuthPage({ title, subtitle, children }: { title: string; subtitle: string; children: ReactNode }) {
  return (
    <main className="center-page">
      <div className="card narrow">
        <div className="auth-brand">
          <Logo />
        </div>
        <h1 className="auth-title">{title}</h1>
        <p className="auth-subtitle">{subtitle}</p>
        {children}
      </div>
    </main>
  );
}
