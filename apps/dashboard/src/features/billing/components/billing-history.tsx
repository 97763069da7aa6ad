import { useId, useState } from 'react';
import type { ReactNode } from 'react';
import type { DailySpend, LedgerEntryKind, LedgerEntryResponse } from '@switchyard/shared-dto';

import { FormattedDate } from '../../../components/ui/formatted-date';
import { PagedList } from '../../../components/ui/paged-list';
import { formatMoney } from '../../../lib/money';
import { useDailySpend } from '../api/list-daily-spend';
import { useCredits } from '../api/list-ledger';

const KIND_LABELS: Record<LedgerEntryKind, string> = {
  signup_credit: 'Sign-up credit',
  payment: 'Card payment',
  gift_card: 'Gift card',
  admin_adjustment: 'Adjustment',
  usage: 'Model usage',
  reversal: 'Reversal',
  refund: 'Card refund',
  earnings: 'Earnings moved in',
};

type View = 'all' | 'credits' | 'usage';
const VIEWS: { value: View; label: string }[] = [
  { value: 'all', label: 'All' },
  { value: 'credits', label: 'Credits' },
  { value: 'usage', label: 'Usage' },
];

const count = new Intl.NumberFormat('en-US');
// The days are UTC days: shown as such, whatever the reader's time zone.
const utcDay = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeZone: 'UTC' });

/** One paged table of the history under its heading; `head` is its columns' header row. */
function HistoryTable<T>({
  title,
  query,
  what,
  empty,
  head,
  row,
}: {
  title: string;
  query: Parameters<typeof PagedList<T>>[0]['query'];
  what: string;
  empty: string;
  head: ReactNode;
  row: (item: T) => ReactNode;
}) {
  const headingId = useId();
  return (
    <div className="stack">
      <h3 id={headingId} className="subheading">
        {title}
      </h3>
      <PagedList query={query} what={what} empty={empty}>
        {(items) => (
          <div className="table-scroll">
            <table className="data-table stack-on-phone" aria-labelledby={headingId}>
              <thead>{head}</thead>
              <tbody>{items.map(row)}</tbody>
            </table>
          </div>
        )}
      </PagedList>
    </div>
  );
}

function Credits() {
  return (
    <HistoryTable
      title="Credits"
      query={useCredits()}
      what="the credits"
      empty="No credits yet."
      head={
        <tr>
          <th scope="col">Date</th>
          <th scope="col">Credit</th>
          <th scope="col" className="numeric">
            Amount
          </th>
        </tr>
      }
      row={(entry: LedgerEntryResponse) => (
        <tr key={entry.id}>
          <td data-label="Date">
            <FormattedDate iso={entry.createdAt} format="dateTime" />
          </td>
          <th scope="row" className="data-table-name" data-label="Credit">
            {KIND_LABELS[entry.kind] ?? entry.kind}
          </th>
          <td className={`numeric ${entry.amount > 0 ? 'amount-credit' : 'amount-debit'}`} data-label="Amount">
            {entry.amount > 0 ? '+' : ''}
            {formatMoney(entry.amount)}
          </td>
        </tr>
      )}
    />
  );
}

function DailyUsage() {
  return (
    <HistoryTable
      title="Usage by day"
      query={useDailySpend()}
      what="the usage"
      empty="No calls charged yet."
      head={
        <tr>
          <th scope="col">Day (UTC)</th>
          <th scope="col" className="numeric">
            Calls
          </th>
          <th scope="col" className="numeric">
            Charged
          </th>
        </tr>
      }
      row={(item: DailySpend) => (
        <tr key={item.day}>
          <th scope="row" className="data-table-name" data-label="Day (UTC)">
            <time dateTime={item.day}>{utcDay.format(new Date(`${item.day}T00:00:00Z`))}</time>
          </th>
          <td className="numeric" data-label="Calls">
            {count.format(item.calls)}
          </td>
          <td className="numeric amount-debit" data-label="Charged">
            {formatMoney(item.amount)}
          </td>
        </tr>
      )}
    />
  );
}

/** The money in (each credit on its own row) and out (the calls' charges summed per UTC day), with a filter. */
export function BillingHistory() {
  const id = useId();
  const [view, setView] = useState<View>('all');
  return (
    <section className="card stack" aria-labelledby={`${id}-heading`}>
      <h2 id={`${id}-heading`} className="card-title">
        History
      </h2>
      <fieldset className="fieldset segmented">
        <legend className="field-label">Show</legend>
        <div className="segmented-options">
          {VIEWS.map((option) => (
            <label key={option.value} className="segmented-option">
              <input
                type="radio"
                name={`${id}-view`}
                value={option.value}
                checked={view === option.value}
                onChange={() => setView(option.value)}
              />
              <span>{option.label}</span>
            </label>
          ))}
        </div>
      </fieldset>
      {view !== 'usage' ? <Credits /> : null}
      {view !== 'credits' ? <DailyUsage /> : null}
      <p className="muted small">
        Amounts are in US dollars, rounded to the cent; each call&apos;s exact cost is on the Requests page.
      </p>
    </section>
  );
}
