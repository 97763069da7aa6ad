import { AppList } from '../../features/oauth-apps/components/app-list';
import { CreateAppForm } from '../../features/oauth-apps/components/create-app-form';
import { useDocumentTitle } from '../../lib/router';

export function OAuthAppsRoute() {
  useDocumentTitle('OAuth apps');

  return (
    <>
      <div className="page-header">
        <h1 className="page-title">OAuth apps</h1>
        <p className="muted">
          Register an app to let its users sign in with Switchyard and call models on their own budget, through standard
          OAuth 2 with PKCE. Each user decides on the consent page, and can cap what your app spends.
        </p>
      </div>
      <CreateAppForm />
      <AppList />
    </>
  );
}
