import { useId } from 'react';
import type { ReactNode } from 'react';
import type { UserResponse } from '@switchyard/shared-dto';

import { Button } from '../../components/ui/button';
import { FormattedDate } from '../../components/ui/formatted-date';
import { BALANCE_POLL_MS, useBalance } from '../../features/billing/api/get-balance';
import { useAnalytics } from '../../features/usage/api/get-analytics';
import { RecentActivity } from '../../features/usage/components/recent-activity';
import { thisMonth } from '../../features/usage/lib/date-range';
import { formatMoney } from '../../lib/money';
import { Link, useDocumentTitle } from '../../lib/router';

const count = new Intl.NumberFormat('en-US');

/** A figure that may still be loading or may have failed to load. */
function Figure({
  label,
  query,
  children,
}: {
  label: string;
  query: { isPending: boolean; isError: boolean; isFetching: boolean; refetch: () => unknown };
  children: () => ReactNode;
}) {
  let value: ReactNode;
  if (query.isPending) value = <span className="muted">Loading…</span>;
  else if (query.isError)
    value = (
      <span className="figure-error">
        Could not load.{' '}
        <Button variant="ghost" className="button-link" busy={query.isFetching} onClick={() => void query.refetch()}>
          Try again<span className="visually-hidden"> to load {label.toLowerCase()}</span>
        </Button>
      </span>
    );
  else value = children();
  return (
    <div>
      <dt>{label}</dt>
      <dd>{value}</dd>
    </div>
  );
}

export function OverviewRoute({ user }: { user: UserResponse }) {
  useDocumentTitle('Overview');
  const budgetId = useId();
  const accountId = useId();
  const balance = useBalance({ poll: true });
  const month = useAnalytics(thisMonth(), 'day');

  return (
    <>
      <h1 className="page-title">Welcome, {user.name || user.email}</h1>
      <section className="card stack" aria-labelledby={budgetId}>
        <h2 id={budgetId} className="card-title">
          Budget
        </h2>
        <dl className="details">
          <Figure label="Remaining budget" query={balance}>
            {() => <span className="balance-figure">{formatMoney(balance.data?.remainingBudget ?? 0)}</span>}
          </Figure>
          <Figure label="Spent this month" query={month}>
            {() => <span className="balance-figure">{formatMoney(month.data?.totals.cost ?? 0)}</span>}
          </Figure>
          <Figure label="Calls this month" query={month}>
            {() => count.format(month.data?.totals.requests ?? 0)}
          </Figure>
        </dl>
        <p className="muted small">
          This month is the UTC calendar month. The balance is checked every {BALANCE_POLL_MS / 60_000} minutes and
          after calls made here. <Link href="/billing">Add funds</Link> · <Link href="/usage">Usage analytics</Link>
        </p>
      </section>
      <RecentActivity />
      <section className="card" aria-labelledby={accountId}>
        <h2 id={accountId} className="card-title">
          Your account
        </h2>
        <dl className="details">
          <div>
            <dt>Email</dt>
            <dd>{user.email}</dd>
          </div>
          <div>
            <dt>Role</dt>
            <dd>{user.role}</dd>
          </div>
          {user.handle ? (
            <div>
              <dt>Handle</dt>
              <dd>@{user.handle}</dd>
            </div>
          ) : null}
          <div>
            <dt>Member since</dt>
            <dd>
              <FormattedDate iso={user.createdAt} format="date" />
            </dd>
          </div>
        </dl>
      </section>
    </>
  );
}
