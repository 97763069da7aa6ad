import { useId } from 'react';

import { LoadError } from '../../../components/ui/load-error';
import { formatMoney } from '../../../lib/money';
import { useBalance } from '../api/get-balance';

/** What is left to spend, what was added and what was spent. */
export function BalanceCard() {
  const headingId = useId();
  const balance = useBalance();

  let body;
  if (balance.isPending) {
    body = (
      <p className="muted" role="status">
        Loading your balance…
      </p>
    );
  } else if (balance.isError) {
    body = (
      <LoadError message={`Could not load your balance: ${balance.error.message}`} retrying={balance.isFetching} onRetry={() => void balance.refetch()} />
    );
  } else {
    body = (
      <dl className="details">
        <div>
          <dt>Available balance</dt>
          <dd className="balance-figure">{formatMoney(balance.data.remainingBudget)}</dd>
        </div>
        <div>
          <dt>Added in total</dt>
          <dd>{formatMoney(balance.data.maxBudget)}</dd>
        </div>
        <div>
          <dt>Spent</dt>
          <dd>{formatMoney(balance.data.totalCost)}</dd>
        </div>
      </dl>
    );
  }

  return (
    <section className="card" aria-labelledby={headingId}>
      <h2 id={headingId} className="card-title">
        Balance
      </h2>
      {body}
    </section>
  );
}
