import { Link, useDocumentTitle } from '../../lib/router';

export function NotFoundRoute() {
  useDocumentTitle('Page not found');

  return (
    <main className="center-page">
      <div className="card narrow">
        <h1 className="auth-title">Page not found</h1>
        <p className="muted">There is nothing at this address.</p>
        <p>
          <Link href="/">Go to the overview</Link>
        </p>
      </div>
    </main>
  );
}
