import { useId } from 'react';
import type { AuditEntry } from '@switchyard/shared-dto';

import { FormattedDate } from '../../../components/ui/formatted-date';
import { PagedList } from '../../../components/ui/paged-list';
import { formatMoney } from '../../../lib/money';
import { useAuditLog } from '../api/console';

/** An entry's "what", in words. */
export function auditWords(entry: AuditEntry): string {
  const details = entry.details as { amount?: number; reason?: string; count?: number };
  const reason = details.reason ? `: ${details.reason}` : '';
  switch (entry.action) {
    case 'balance_adjusted':
      return `${(details.amount ?? 0) > 0 ? 'credited' : 'debited'} ${formatMoney(Math.abs(details.amount ?? 0))}${reason}`;
    case 'account_disabled':
      return `disabled the account${reason}`;
    case 'account_enabled':
      return `enabled the account${reason}`;
    case 'gift_cards_issued':
      return `issued ${details.count ?? 0} gift card${details.count === 1 ? '' : 's'} of ${formatMoney(details.amount ?? 0)}`;
    case 'payment_refunded':
      return `refunded ${formatMoney(details.amount ?? 0)} of a card top-up`;
    default:
      return entry.action;
  }
}

/** The audit log, newest first: who, what, when (of one account when `userId` is given). */
export function AuditTable({ userId = null }: { userId?: string | null }) {
  const log = useAuditLog(userId);
  return (
    <PagedList query={log} what="the audit log" empty="No admin action yet.">
      {(items) => (
        <div className="table-scroll">
          <table className="data-table stack-on-phone">
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Who</th>
                <th scope="col">What</th>
                {userId ? null : <th scope="col">Account</th>}
              </tr>
            </thead>
            <tbody>
              {items.map((entry) => (
                <tr key={entry.id}>
                  <td data-label="When">
                    <FormattedDate iso={entry.at} format="dateTime" />
                  </td>
                  <td data-label="Who">{entry.admin?.email ?? 'the command line'}</td>
                  <th scope="row" className="data-table-name" data-label="What">
                    {auditWords(entry)}
                  </th>
                  {userId ? null : <td data-label="Account">{entry.target?.email ?? '—'}</td>}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </PagedList>
  );
}

export function AuditPanel() {
  const id = useId();
  return (
    <section className="card stack" aria-labelledby={id}>
      <h2 id={id} className="card-title">
        Audit log
      </h2>
      <p className="muted">Every admin action, kept for good: the database refuses to change or delete an entry.</p>
      <AuditTable />
    </section>
  );
}
