import { useId, useState } from 'react';

import { LoadError } from '../../../components/ui/load-error';
import { SelectField } from '../../../components/ui/select-field';
import { formatMoney } from '../../../lib/money';
import { useAdminMoney } from '../api/console';

const count = new Intl.NumberFormat('en-US');

const WINDOWS: { value: string; label: string }[] = [
  { value: '7', label: 'Last 7 days' },
  { value: '30', label: 'Last 30 days' },
  { value: '90', label: 'Last 90 days' },
  { value: '365', label: 'Last 365 days' },
];

/**
 * What the operator earned and lost (docs/operations.md): the fee on every app markup (by the day of the call),
 * calls charged less than they cost, and refunds or disputes that took more than the balance still held, less what
 * claw-backs of makers' earnings recovered (by the day they were recorded).
 */
export function MoneyPanel() {
  const id = useId();
  const [days, setDays] = useState('30');
  const money = useAdminMoney(Number(days));
  const data = money.data;

  return (
    <section className="card stack" aria-labelledby={id}>
      <h2 id={id} className="card-title">
        Fees and losses
      </h2>
      <div className="filter-row">
        <SelectField label="Window" value={days} options={WINDOWS} onChange={setDays} />
      </div>
      {money.isError ? (
        <LoadError
          message={`Could not load the money: ${money.error.message}`}
          retrying={money.isFetching}
          onRetry={() => void money.refetch()}
        />
      ) : !data ? (
        <p className="muted" role="status">
          Loading fees and losses…
        </p>
      ) : (
        <>
          <dl className="details" data-testid="money-totals">
            <div>
              <dt>Fees earned</dt>
              <dd className="balance-figure">{formatMoney(data.totals.fees)}</dd>
            </div>
            <div>
              <dt>Lost on calls</dt>
              <dd className="balance-figure">
                {formatMoney(data.totals.callLosses)} ({count.format(data.totals.lossCalls)} calls)
              </dd>
            </div>
            <div>
              <dt>Lost on refunds</dt>
              <dd className="balance-figure">
                {formatMoney(data.totals.refundLosses)} ({count.format(data.totals.lossRefunds)} refunds;{' '}
                {formatMoney(data.totals.clawedBack)} clawed back)
              </dd>
            </div>
          </dl>
          {data.items.length === 0 ? (
            <p className="muted">No fees or losses in this window.</p>
          ) : (
            <div className="table-scroll">
              <table className="data-table stack-on-phone" aria-labelledby={id}>
                <thead>
                  <tr>
                    <th scope="col">Day (UTC)</th>
                    <th scope="col" className="numeric">
                      Fees
                    </th>
                    <th scope="col" className="numeric">
                      Marked-up calls
                    </th>
                    <th scope="col" className="numeric">
                      Lost on calls
                    </th>
                    <th scope="col" className="numeric">
                      Lost on refunds
                    </th>
                    <th scope="col" className="numeric">
                      Clawed back
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {data.items.map((day) => (
                    <tr key={day.date}>
                      <th scope="row" className="data-table-name" data-label="Day">
                        {day.date}
                      </th>
                      <td className="numeric" data-label="Fees">
                        {formatMoney(day.fees)}
                      </td>
                      <td className="numeric" data-label="Marked-up calls">
                        {count.format(day.markedUpCalls)}
                      </td>
                      <td className="numeric" data-label="Lost on calls">
                        {formatMoney(day.callLosses)} ({count.format(day.lossCalls)})
                      </td>
                      <td className="numeric" data-label="Lost on refunds">
                        {formatMoney(day.refundLosses)} ({count.format(day.lossRefunds)})
                      </td>
                      <td className="numeric" data-label="Clawed back">
                        {formatMoney(day.clawedBack)}
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
