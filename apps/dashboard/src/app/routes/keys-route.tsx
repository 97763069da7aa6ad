import { CreateKeyForm } from '../../features/keys/components/create-key-form';
import { KeyList } from '../../features/keys/components/key-list';
import { KeyUsage } from '../../features/keys/components/key-usage';
import { useDocumentTitle } from '../../lib/router';

export function KeysRoute() {
  useDocumentTitle('API keys');

  return (
    <>
      <div className="page-header">
        <h1 className="page-title">API keys</h1>
        <p className="muted">
          A key lets a program call the gateway directly, as you. Treat it like a password, and revoke it here when it
          is no longer needed: it stops working at once.
        </p>
      </div>
      <CreateKeyForm />
      <KeyList />
      <KeyUsage />
    </>
  );
}
