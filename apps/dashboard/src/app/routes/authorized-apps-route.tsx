import { ConsentList } from '../../features/consents/components/consent-list';
import { useDocumentTitle } from '../../lib/router';

export function AuthorizedAppsRoute() {
  useDocumentTitle('Authorized apps');

  return (
    <>
      <div className="page-header">
        <h1 className="page-title">Authorized apps</h1>
        <p className="muted">
          Apps you allowed to use your account. Cap what each may spend, or revoke its access: its tokens stop working
          at once.
        </p>
      </div>
      <ConsentList />
    </>
  );
}
