import { useId } from 'react';

import { Button } from '../../../components/ui/button';
import { FormattedDate } from '../../../components/ui/formatted-date';
import { QueryView } from '../../../components/ui/query-view';
import { formatMoney } from '../../../lib/money';
import { Link } from '../../../lib/router';
import { ACTIVITY_REFRESH_MS, useActivity } from '../api/get-activity';
import { toActivityRow } from '../lib/activity-fields';
import { NoCallsYet } from './no-calls-yet';
import type { ActivityRow, LooseActivityRecord } from '../lib/activity-fields';

const ROWS = 10;
const tokens = new Intl.NumberFormat('en-US');
const clock = new Intl.DateTimeFormat(undefined, { timeStyle: 'medium' });

function ActivityTable({ rows, labelledBy }: { rows: ActivityRow[]; labelledBy: string }) {
  return (
    <div className="table-scroll">
      <table className="data-table stack-on-phone" aria-labelledby={labelledBy}>
        <thead>
          <tr>
            <th scope="col">Time</th>
            <th scope="col">Key or app</th>
            <th scope="col">Model</th>
            <th scope="col" className="numeric">
              Tokens
            </th>
            <th scope="col" className="numeric">
              Cost
            </th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={row.id}>
              <td data-label="Time">{row.time ? <FormattedDate iso={row.time} format="dateTime" /> : 'Unknown'}</td>
              <th scope="row" className="data-table-name" data-label="Key or app">
                {row.name}
              </th>
              <td data-label="Model">
                <code className="mono">{row.model}</code>
                {row.problem ? (
                  <span className="badge badge-revoked activity-problem" title="How the call ended">
                    {row.problem.replace(/_/g, ' ')}
                  </span>
                ) : null}
              </td>
              <td className="numeric" data-label="Tokens">
                {tokens.format(row.totalTokens)}
              </td>
              <td className="numeric" data-label="Cost">
                {formatMoney(row.cost)}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** The latest calls (time, key or app, model, tokens, cost), refreshed every 30 seconds while shown. */
export function RecentActivity() {
  const headingId = useId();
  const activity = useActivity(ROWS);

  return (
    <section className="card stack" aria-labelledby={headingId}>
      <div className="card-heading-row">
        <h2 id={headingId} className="card-title">
          Recent activity
        </h2>
        <div className="card-heading-actions">
          {activity.dataUpdatedAt ? (
            <span className="muted small">Updated {clock.format(activity.dataUpdatedAt)}</span>
          ) : null}
          <Button
            variant="secondary"
            busy={activity.isFetching && !activity.isPending}
            onClick={() => void activity.refetch()}
          >
            Refresh
          </Button>
        </div>
      </div>
      <QueryView query={activity} what="recent activity">
        {(page) =>
          page.items.length === 0 ? (
            <NoCallsYet />
          ) : (
            <ActivityTable
              rows={page.items.map((item, index) => toActivityRow(item as unknown as LooseActivityRecord, index))}
              labelledBy={headingId}
            />
          )
        }
      </QueryView>
      <p className="muted small">
        Refreshes every {ACTIVITY_REFRESH_MS / 1000} seconds. <Link href="/requests">All requests</Link>, with filters
        and each call&apos;s details, are on the Requests page; totals over time on the <Link href="/usage">Usage</Link>{' '}
        page.
      </p>
    </section>
  );
}
