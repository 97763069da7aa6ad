import { useState } from 'react';

import { Alert } from '../../../components/ui/alert';
import { Button } from '../../../components/ui/button';
import { FormattedDate } from '../../../components/ui/formatted-date';
import { QueryView } from '../../../components/ui/query-view';
import { formatMoney } from '../../../lib/money';
import { useConnectPayouts, usePayout, usePayouts } from '../api/earnings';

/** Payouts (docs/earnings.md, "Payouts"): link an account through Stripe, pay out what is available, the history. */
export function PayoutsCard({ available }: { available: number }) {
  const query = usePayouts();
  const connect = useConnectPayouts();
  const payout = usePayout();
  const [said, setSaid] = useState<string | null>(null);
  const failure = connect.error ?? payout.error;

  return (
    <section className="card" aria-labelledby="earnings-payouts">
      <h2 id="earnings-payouts" className="card-title">
        Payouts
      </h2>
      <QueryView query={query} what="your payouts">
        {(data) => (
          <>
            <p className="muted">
              {data.connected
                ? `Payouts go to your linked ${data.sandbox ? 'sandbox ' : ''}account, in whole cents; anything below a cent goes to your budget.`
                : 'Link an account through Stripe to be paid what your apps earn.'}
            </p>
            {failure ? <Alert>That did not work: {failure.message}</Alert> : null}
            {said ? <p role="status">{said}</p> : null}
            <div className="button-row">
              <Button
                variant={data.connected ? 'secondary' : 'primary'}
                busy={connect.isPending}
                onClick={() => connect.mutate(undefined, { onSuccess: ({ url }) => window.location.assign(url) })}
              >
                {data.connected ? 'Update payout account' : 'Set up payouts'}
              </Button>
              {data.connected ? (
                <Button
                  busy={payout.isPending}
                  disabled={available <= 0}
                  onClick={() =>
                    payout.mutate(undefined, {
                      onSuccess: (answer) =>
                        setSaid(
                          answer.payout
                            ? `${formatMoney(answer.payout.amount)} paid out.`
                            : answer.credited > 0
                              ? `${formatMoney(answer.credited)} (under a cent) moved into your budget.`
                              : 'Nothing was available to pay out.',
                        ),
                    })
                  }
                >
                  Pay out available
                </Button>
              ) : null}
            </div>
            {data.payouts.length > 0 ? (
              <div className="table-scroll">
                <table className="data-table stack-on-phone" aria-labelledby="earnings-payouts">
                  <thead>
                    <tr>
                      <th scope="col">When</th>
                      <th scope="col">Amount</th>
                      <th scope="col">Status</th>
                      <th scope="col">Transfer</th>
                    </tr>
                  </thead>
                  <tbody>
                    {data.payouts.map((item) => (
                      <tr key={item.id}>
                        <th scope="row" className="data-table-name" data-label="When">
                          <FormattedDate iso={item.createdAt} />
                        </th>
                        <td data-label="Amount">{formatMoney(item.amount)}</td>
                        <td data-label="Status">
                          {item.status === 'paid' ? 'Paid' : 'Pending (sent again with the next payout)'}
                        </td>
                        <td data-label="Transfer">
                          <code className="mono">{item.transferId ?? '—'}</code>
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            ) : null}
          </>
        )}
      </QueryView>
    </section>
  );
}
