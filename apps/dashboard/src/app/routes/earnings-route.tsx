import { EarningsView } from '../../features/earnings/components/earnings-view';
import { useDocumentTitle } from '../../lib/router';

export function EarningsRoute() {
  useDocumentTitle('Earnings');
  return (
    <>
      <div className="page-header">
        <h1 className="page-title">Earnings</h1>
        <p className="muted">What your apps' markups earned, per app and per day, and moving it into your budget.</p>
      </div>
      <EarningsView />
    </>
  );
}
