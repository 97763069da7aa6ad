import { useMemo } from 'react';

import { useConsents } from '../../features/consents/api/list-consents';
import { useKeys } from '../../features/keys/api/list-keys';
import { useOAuthApps } from '../../features/oauth-apps/api/list-oauth-apps';
import { RequestsLog } from '../../features/usage/components/requests-log';
import { useDocumentTitle } from '../../lib/router';

export function RequestsRoute() {
  useDocumentTitle('Requests');
  // The filters' choices: the user's keys, and the apps a call may come through (authorized or owned).
  const keys = useKeys();
  const consents = useConsents();
  const apps = useOAuthApps();
  const keyOptions = useMemo(() => (keys.data ?? []).map((key) => ({ value: key.id, label: key.name })), [keys.data]);
  const appOptions = useMemo(() => {
    const names = new Map<string, string>();
    for (const consent of consents.data ?? []) names.set(consent.clientId, consent.clientName);
    for (const app of apps.data ?? []) names.set(app.clientId, app.clientName);
    return [...names].map(([value, label]) => ({ value, label }));
  }, [consents.data, apps.data]);

  return (
    <>
      <div className="page-header">
        <h1 className="page-title">Requests</h1>
        <p className="muted">
          Every call to the gateway, newest first: what it cost, how long it took and what happened to the money held
          for it. Open a call for its request id to quote when you ask about it.
        </p>
      </div>
      <RequestsLog keyOptions={keyOptions} appOptions={appOptions} />
    </>
  );
}
