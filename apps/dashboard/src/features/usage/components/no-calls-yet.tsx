import { Link } from '../../../lib/router';

/** The empty state of the lists of calls: where to make the first one. */
export function NoCallsYet() {
  return (
    <p className="muted">
      No calls yet. Try a model in the <Link href="/playground">Playground</Link>, or call the gateway with one of{' '}
      <Link href="/keys">your API keys</Link>.
    </p>
  );
}
