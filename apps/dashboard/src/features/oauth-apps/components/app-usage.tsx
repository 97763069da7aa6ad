import { Alert } from '../../../components/ui/alert';
import { Button } from '../../../components/ui/button';
import { FormattedDate } from '../../../components/ui/formatted-date';
import { formatMoney } from '../../../lib/money';
import { useOAuthAppUsage } from '../api/get-oauth-app-usage';

const countFormat = new Intl.NumberFormat();

/** What the app's users spent through it over the server's default window (the last 30 days). */
export function AppUsage({ clientId, id }: { clientId: string; id: string }) {
  const usageQuery = useOAuthAppUsage(clientId);

  if (usageQuery.isPending) {
    return (
      <div id={id} className="app-usage">
        <p className="muted" role="status">
          Loading usage…
        </p>
      </div>
    );
  }
  if (usageQuery.isError) {
    return (
      <div id={id} className="app-usage stack">
        <Alert>Could not load the usage: {usageQuery.error.message}</Alert>
        <div>
          <Button variant="secondary" busy={usageQuery.isFetching} onClick={() => void usageQuery.refetch()}>
            Try again
          </Button>
        </div>
      </div>
    );
  }

  const usage = usageQuery.data;
  return (
    <div id={id} className="app-usage stack">
      <p className="muted">
        From <FormattedDate iso={usage.startDate} /> to <FormattedDate iso={usage.endDate} />
      </p>
      <dl className="details">
        <div>
          <dt>Requests</dt>
          <dd>{countFormat.format(usage.requests)}</dd>
        </div>
        <div>
          <dt>Tokens</dt>
          <dd>{countFormat.format(usage.totalTokens)}</dd>
        </div>
        <div>
          <dt>Cost</dt>
          <dd>{formatMoney(usage.totalCost)}</dd>
        </div>
        <div>
          <dt>Users</dt>
          <dd>{countFormat.format(usage.users)}</dd>
        </div>
      </dl>
      {usage.byModel.length > 0 ? (
        <div className="table-scroll">
          <table className="data-table stack-on-phone">
            <caption className="visually-hidden">Usage by model</caption>
            <thead>
              <tr>
                <th scope="col">Model</th>
                <th scope="col">Requests</th>
                <th scope="col">Tokens</th>
                <th scope="col">Cost</th>
              </tr>
            </thead>
            <tbody>
              {usage.byModel.map((row) => (
                <tr key={row.model}>
                  <th scope="row" data-label="Model">
                    <code className="mono">{row.model}</code>
                  </th>
                  <td data-label="Requests">{countFormat.format(row.requests)}</td>
                  <td data-label="Tokens">{countFormat.format(row.totalTokens)}</td>
                  <td data-label="Cost">{formatMoney(row.cost)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
    </div>
  );
}
