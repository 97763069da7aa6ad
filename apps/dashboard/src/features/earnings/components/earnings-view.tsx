import { useState } from 'react';
import type { EarningsDay, EarningsResponse } from '@switchyard/shared-dto';

import { Alert } from '../../../components/ui/alert';
import { Button } from '../../../components/ui/button';
import { QueryView } from '../../../components/ui/query-view';
import { formatMoney } from '../../../lib/money';
import { EARNINGS_CSV_URL, useEarnings, useMoveEarnings } from '../api/earnings';
import { PayoutsCard } from './payouts-card';

/** The maker's earnings: totals, move to budget, per app and per day (with a bar per day), and the CSV. */
export function EarningsView() {
  const query = useEarnings();
  return (
    <QueryView query={query} what="your earnings">
      {(data) => <Earnings data={data} />}
    </QueryView>
  );
}

function Earnings({ data }: { data: EarningsResponse }) {
  const move = useMoveEarnings();
  const [moved, setMoved] = useState<number | null>(null);
  const names = new Map(data.apps.map((app) => [app.clientId, app.clientName]));
  const { totals } = data;

  return (
    <>
      <section className="card" aria-labelledby="earnings-totals">
        <h2 id="earnings-totals" className="card-title">
          Totals
        </h2>
        <dl className="details">
          <div>
            <dt>Available</dt>
            <dd data-testid="earnings-available">{formatMoney(totals.available)}</dd>
          </div>
          <div>
            <dt>Pending ({data.holdDays} days' hold)</dt>
            <dd data-testid="earnings-pending">{formatMoney(totals.pending)}</dd>
          </div>
          <div>
            <dt>Moved to your budget</dt>
            <dd>{formatMoney(totals.moved)}</dd>
          </div>
        </dl>
        <p className="muted">
          Users pay your app's markup on top of the provider's price; the operator keeps {data.platformFeePercent}% of
          it and you earn the rest. Earnings stay pending for {data.holdDays} days (for refunds and disputes).
        </p>
        {move.error ? <Alert>That did not work: {move.error.message}</Alert> : null}
        {moved !== null ? (
          <p role="status">
            {moved > 0 ? `${formatMoney(moved)} moved into your budget.` : 'Nothing was available to move.'}
          </p>
        ) : null}
        <div className="button-row">
          <Button
            busy={move.isPending}
            disabled={totals.available <= 0}
            onClick={() => move.mutate(undefined, { onSuccess: (answer) => setMoved(answer.moved) })}
          >
            Move available to my budget
          </Button>
          <a className="button button-secondary" href={EARNINGS_CSV_URL} download="earnings.csv">
            Download CSV
          </a>
        </div>
      </section>
      <PayoutsCard available={totals.available} />
      <section className="card" aria-labelledby="earnings-apps">
        <h2 id="earnings-apps" className="card-title">
          Per app
        </h2>
        {data.apps.length === 0 ? (
          <p className="muted">You have no OAuth apps yet. Register one and set its markup on the OAuth apps page.</p>
        ) : (
          <div className="table-scroll">
            <table className="data-table stack-on-phone" aria-labelledby="earnings-apps">
              <thead>
                <tr>
                  <th scope="col">App</th>
                  <th scope="col">Markup</th>
                  <th scope="col">Calls</th>
                  <th scope="col">Users paid</th>
                  <th scope="col">Provider cost</th>
                  <th scope="col">Fees</th>
                  <th scope="col">Earnings</th>
                  <th scope="col">Pending</th>
                  <th scope="col">Available</th>
                </tr>
              </thead>
              <tbody>
                {data.apps.map((app) => (
                  <tr key={app.clientId}>
                    <th scope="row" className="data-table-name" data-label="App">
                      {app.clientName}
                    </th>
                    <td data-label="Markup">{app.markupPercent}%</td>
                    <td data-label="Calls">{app.calls}</td>
                    <td data-label="Users paid">{formatMoney(app.paid)}</td>
                    <td data-label="Provider cost">{formatMoney(app.providerCost)}</td>
                    <td data-label="Fees">{formatMoney(app.fees)}</td>
                    <td data-label="Earnings">{formatMoney(app.earnings)}</td>
                    <td data-label="Pending">{formatMoney(app.pending)}</td>
                    <td data-label="Available">{formatMoney(app.available)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
      <DaysTable days={data.days} names={names} />
    </>
  );
}

/** Per UTC day and app, newest first, each with a bar as long as its share of the best day. */
function DaysTable({ days, names }: { days: EarningsDay[]; names: Map<string, string> }) {
  const best = Math.max(0, ...days.map((day) => day.earnings));
  return (
    <section className="card" aria-labelledby="earnings-days">
      <h2 id="earnings-days" className="card-title">
        Per day (last 90 days, UTC)
      </h2>
      {days.length === 0 ? (
        <p className="muted">No calls through your apps with a markup yet.</p>
      ) : (
        <div className="table-scroll">
          <table className="data-table stack-on-phone" aria-labelledby="earnings-days">
            <thead>
              <tr>
                <th scope="col">Day</th>
                <th scope="col">App</th>
                <th scope="col">Calls</th>
                <th scope="col">Users paid</th>
                <th scope="col">Earnings</th>
                <th scope="col">Pending</th>
                <th scope="col">Available</th>
              </tr>
            </thead>
            <tbody>
              {days.map((day) => (
                <tr key={`${day.date}-${day.clientId}`}>
                  <th scope="row" className="data-table-name" data-label="Day">
                    {day.date}
                  </th>
                  <td data-label="App">{names.get(day.clientId) ?? day.clientId}</td>
                  <td data-label="Calls">{day.calls}</td>
                  <td data-label="Users paid">{formatMoney(day.paid)}</td>
                  <td data-label="Earnings">
                    <meter
                      className="earnings-bar"
                      aria-hidden="true"
                      min={0}
                      max={best > 0 ? best : 1}
                      value={day.earnings}
                    />{' '}
                    {formatMoney(day.earnings)}
                  </td>
                  <td data-label="Pending">{formatMoney(day.pending)}</td>
                  <td data-label="Available">{formatMoney(day.available)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
