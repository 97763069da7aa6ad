import { useId, useState } from 'react';
import type { AdminUsageGroupBy, AdminUsageRow } from '@switchyard/shared-dto';

import { LoadError } from '../../../components/ui/load-error';
import { SelectField } from '../../../components/ui/select-field';
import { TextField } from '../../../components/ui/text-field';
import { formatMoney } from '../../../lib/money';
import { useAdminUsage } from '../api/console';

const count = new Intl.NumberFormat('en-US');

const GROUPS: { value: AdminUsageGroupBy; label: string }[] = [
  { value: 'day', label: 'Day' },
  { value: 'model', label: 'Model' },
  { value: 'day_model', label: 'Day and model' },
  { value: 'user', label: 'Account' },
];

function rowLabel(row: AdminUsageRow, groupBy: AdminUsageGroupBy): string {
  if (groupBy === 'user') return row.email ?? row.userId ?? '—';
  if (groupBy === 'model') return row.model ?? '—';
  if (groupBy === 'day_model') return `${row.day ?? ''} · ${row.model ?? ''}`;
  return row.day ?? '—';
}

/** Every account's calls and spend, per UTC day, model, both, or account. */
export function UsagePanel() {
  const id = useId();
  const [groupBy, setGroupBy] = useState<AdminUsageGroupBy>('day');
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const usage = useAdminUsage(groupBy, from, to);
  const data = usage.data;

  return (
    <section className="card stack" aria-labelledby={id}>
      <h2 id={id} className="card-title">
        Usage across accounts
      </h2>
      <div className="filter-row">
        <SelectField label="By" value={groupBy} options={GROUPS} onChange={setGroupBy} />
        <TextField
          label="From"
          type="date"
          value={from}
          max={to || undefined}
          onChange={(e) => setFrom(e.target.value)}
        />
        <TextField label="To" type="date" value={to} min={from || undefined} onChange={(e) => setTo(e.target.value)} />
      </div>
      <p className="field-hint">UTC days, both included; the last 30 days when none is set.</p>
      {usage.isError ? (
        <LoadError
          message={`Could not load the usage: ${usage.error.message}`}
          retrying={usage.isFetching}
          onRetry={() => void usage.refetch()}
        />
      ) : !data ? (
        <p className="muted" role="status">
          Loading the usage…
        </p>
      ) : (
        <>
          <dl className="details">
            <div>
              <dt>Requests</dt>
              <dd className="balance-figure">{count.format(data.totals.requests)}</dd>
            </div>
            <div>
              <dt>Spend</dt>
              <dd className="balance-figure">{formatMoney(data.totals.cost)}</dd>
            </div>
            <div>
              <dt>Accounts</dt>
              <dd className="balance-figure">{count.format(data.totals.users)}</dd>
            </div>
          </dl>
          {data.rows.length === 0 ? (
            <p className="muted">No calls in this window.</p>
          ) : (
            <div className="table-scroll">
              <table className="data-table stack-on-phone" aria-labelledby={id}>
                <thead>
                  <tr>
                    <th scope="col">{GROUPS.find((group) => group.value === data.groupBy)?.label}</th>
                    <th scope="col" className="numeric">
                      Requests
                    </th>
                    <th scope="col" className="numeric">
                      Errors
                    </th>
                    <th scope="col" className="numeric">
                      Tokens
                    </th>
                    <th scope="col" className="numeric">
                      Spend
                    </th>
                    <th scope="col" className="numeric">
                      Accounts
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {data.rows.map((row) => (
                    <tr key={`${row.day}|${row.model}|${row.userId}`}>
                      <th scope="row" className="data-table-name" data-label="Group">
                        {rowLabel(row, data.groupBy)}
                      </th>
                      <td className="numeric" data-label="Requests">
                        {count.format(row.requests)}
                      </td>
                      <td className="numeric" data-label="Errors">
                        {count.format(row.errors)}
                      </td>
                      <td className="numeric" data-label="Tokens">
                        {count.format(row.totalTokens)}
                      </td>
                      <td className="numeric" data-label="Spend">
                        {formatMoney(row.cost)}
                      </td>
                      <td className="numeric" data-label="Accounts">
                        {count.format(row.users)}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </>
      )}
    </section>
  );
}
