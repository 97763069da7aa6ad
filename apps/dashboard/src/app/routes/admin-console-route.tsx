import { useState } from 'react';
import type { UserResponse } from '@switchyard/shared-dto';

import { TabPanel, Tabs } from '../../components/ui/tabs';
import { AuditPanel } from '../../features/admin-console/components/audit-panel';
import { MoneyPanel } from '../../features/admin-console/components/money-panel';
import { UsagePanel } from '../../features/admin-console/components/usage-panel';
import { UsersPanel } from '../../features/admin-console/components/users-panel';
import { useDocumentTitle } from '../../lib/router';

type ConsoleTab = 'accounts' | 'usage' | 'money' | 'audit';
const TABS = [
  { id: 'accounts', label: 'Accounts' },
  { id: 'usage', label: 'Usage' },
  { id: 'money', label: 'Fees and losses' },
  { id: 'audit', label: 'Audit log' },
] as const;

/** The operator's console (docs/operations.md): admins only, like the API routes behind it. */
export function AdminConsoleRoute({ user }: { user: UserResponse }) {
  useDocumentTitle('Console');
  const [tab, setTab] = useState<ConsoleTab>('accounts');
  return (
    <>
      <div className="page-header">
        <h1 className="page-title">Console</h1>
        <p className="muted">
          Find an account, adjust its balance with a reason, disable it; usage across accounts; fees earned and losses;
          every action in the audit log.
        </p>
      </div>
      <Tabs label="Console" idPrefix="console" tabs={TABS} selected={tab} onSelect={setTab} />
      <TabPanel idPrefix="console" id={tab}>
        {tab === 'accounts' ? (
          <UsersPanel selfId={user.id} />
        ) : tab === 'usage' ? (
          <UsagePanel />
        ) : tab === 'money' ? (
          <MoneyPanel />
        ) : (
          <AuditPanel />
        )}
      </TabPanel>
    </>
  );
}
