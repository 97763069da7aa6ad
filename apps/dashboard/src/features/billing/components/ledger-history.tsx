import { useId } from 'react';
import type { LedgerEntryKind } from '@switchyard/shared-dto';

import { Alert } from '../../../components/ui/alert';
import { Button } from '../../../components/ui/button';
import { LoadError } from '../../../components/ui/load-error';
import { formatMoney } from '../../../lib/money';
import { useLedger } from '../api/list-ledger';

const KIND_LABELS: Record<LedgerEntryKind, string> = {
  signup_credit: 'Sign-up credit',
  payment: 'Card payment',
  gift_card: 'Gift card',
  admin_adjustment: 'Adjustment',
  usage: 'Model usage',
  reversal: 'Reversal',
};

const dateTimeFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

/** Every credit and debit, newest first, a page at a time. */
export function LedgerHistory() {
  const headingId = useId();
  const ledger = useLedger();
  const entries = ledger.data?.pages.flatMap((page) => page.items) ?? [];

  let body;
  if (ledger.isPending) {
    body = (
      <p className="muted" role="status">
        Loading the history…
      </p>
    );
  } else if (ledger.isError && entries.length === 0) {
    body = (
      <LoadError
        message={`Could not load the history: ${ledger.error.message}`}
        retrying={ledger.isFetching}
        onRetry={() => void ledger.refetch()}
      />
    );
  } else if (entries.length === 0) {
    body = <p className="muted">No credits or charges yet.</p>;
  } else {
    body = (
      <>
        <div className="table-scroll">
          <table className="data-table" aria-labelledby={headingId}>
            <thead>
              <tr>
                <th scope="col">Date</th>
                <th scope="col">Entry</th>
                <th scope="col" className="numeric">
                  Amount
                </th>
              </tr>
            </thead>
            <tbody>
              {entries.map((entry) => (
                <tr key={entry.id}>
                  <td>
                    <time dateTime={entry.createdAt}>{dateTimeFormat.format(new Date(entry.createdAt))}</time>
                  </td>
                  <th scope="row" className="data-table-name">
                    {KIND_LABELS[entry.kind] ?? entry.kind}
                  </th>
                  <td className={`numeric ${entry.amount > 0 ? 'amount-credit' : 'amount-debit'}`}>
                    {entry.amount > 0 ? '+' : ''}
                    {formatMoney(entry.amount)}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        {ledger.isFetchNextPageError ? <Alert>Could not load more: {ledger.error?.message}</Alert> : null}
        {ledger.hasNextPage ? (
          <div>
            <Button variant="secondary" busy={ledger.isFetchingNextPage} onClick={() => void ledger.fetchNextPage()}>
              Load more
            </Button>
          </div>
        ) : null}
      </>
    );
  }

  return (
    <section className="card stack" aria-labelledby={headingId}>
      <h2 id={headingId} className="card-title">
        History
      </h2>
      {body}
    </section>
  );
}
