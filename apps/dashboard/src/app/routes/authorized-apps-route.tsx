import { ConsentList } from '../../features/consents/components/consent-list';
import { useDocumentTitle } from '../../lib/router';

/** `focusClientId`: the deep link /authorized-apps/{clientId} opens that app's caps form. */
export function AuthorizedAppsRoute({ focusClientId }: { focusClientId?: string } = {}) {
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
      <ConsentList focusClientId={focusClientId} />
    </>
  );
}
