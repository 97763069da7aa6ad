import { useMemo } from 'react';

import { useConsents } from '../../features/consents/api/list-consents';
import { UsageAnalytics } from '../../features/usage/components/usage-analytics';
import { useDocumentTitle } from '../../lib/router';

export function UsageRoute() {
  useDocumentTitle('Usage');
  // App groups come keyed by client id; the apps the user authorized lend their names.
  const consents = useConsents();
  const appNames = useMemo(
    () => new Map((consents.data ?? []).map((consent) => [consent.clientId, consent.clientName])),
    [consents.data],
  );

  return (
    <>
      <div className="page-header">
        <h1 className="page-title">Usage</h1>
        <p className="muted">
          What your calls cost and how many tokens they used, over time and by model, API key or OAuth app. Export the
          table as CSV for a spreadsheet.
        </p>
      </div>
      <UsageAnalytics appNames={appNames} />
    </>
  );
}
