import { Alert } from '../../../components/ui/alert';
import { isApiError } from '../../../lib/http';
import { formatMoney } from '../../../lib/money';
import { Link } from '../../../lib/router';

/** A failed call in words, with the way out when the budget ran out or the key is refused. */
export function CallError({ error }: { error: unknown }) {
  const message = error instanceof Error ? error.message : 'The call failed.';
  const code = isApiError(error) ? error.code : null;
  return (
    <Alert>
      <p>{message}</p>
      {code === 'budget_exhausted' ? (
        <p>
          <Link href="/billing">Add funds</Link> to continue.
        </p>
      ) : null}
      {code === 'spend_limit_exceeded' ? (
        <p>
          The key&apos;s own spend limit refused it, not your balance: raise the limit on{' '}
          <Link href="/keys">API keys</Link> or choose another key.
        </p>
      ) : null}
      {code === 'invalid_api_key' ? <p>The key was revoked or is wrong: forget it above and choose another.</p> : null}
      {code === 'rate_limited' && isApiError(error) && error.retryAfterSeconds !== null ? (
        <p>Try again in {error.retryAfterSeconds} seconds.</p>
      ) : null}
    </Alert>
  );
}

/** "12 tokens · $0.000014": what a call used, from the answer's usage or the x-switchyard-cost header. */
export function CallCost({ tokens, cost }: { tokens?: number | null; cost: number | null }) {
  const parts: string[] = [];
  if (typeof tokens === 'number') parts.push(`${tokens.toLocaleString('en-US')} tokens`);
  if (cost !== null) parts.push(formatMoney(cost));
  if (parts.length === 0) return null;
  return <p className="muted small call-cost">{parts.join(' · ')}</p>;
}
