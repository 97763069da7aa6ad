import { useId } from 'react';

import { QueryView } from '../../../components/ui/query-view';
import { formatMoney } from '../../../lib/money';
import { useBalance } from '../api/get-balance';

/** What is left to spend, what was added and what was spent. */
export function BalanceCard() {
  const headingId = useId();
  const balance = useBalance();

  return (
    <section className="card" aria-labelledby={headingId}>
      <h2 id={headingId} className="card-title">
        Balance
      </h2>
      <QueryView query={balance} what="your balance">
        {(summary) => (
          <dl className="details">
            <div>
              <dt>Available balance</dt>
              <dd className="balance-figure">{formatMoney(summary.remainingBudget)}</dd>
            </div>
            <div>
              <dt>Added in total</dt>
              <dd>{formatMoney(summary.maxBudget)}</dd>
            </div>
            <div>
              <dt>Spent</dt>
              <dd>{formatMoney(summary.totalCost)}</dd>
            </div>
          </dl>
        )}
      </QueryView>
    </section>
  );
}
