import { Alert } from '../../components/ui/alert';
import { BalanceCard } from '../../features/billing/components/balance-card';
import { BillingHistory } from '../../features/billing/components/billing-history';
import { PaymentReturn } from '../../features/billing/components/payment-return';
import { RedeemGiftCardForm } from '../../features/billing/components/redeem-gift-card-form';
import { TopUpForm } from '../../features/billing/components/top-up-form';
import { useDocumentTitle, useLocation } from '../../lib/router';

export function BillingRoute() {
  useDocumentTitle('Billing');
  const { searchParams } = useLocation();
  const sessionId = searchParams.get('session_id');

  return (
    <>
      <div className="page-header">
        <h1 className="page-title">Billing</h1>
        <p className="muted">
          Every model call is paid from this balance. Add funds by card or with a gift card; each payment is credited
          exactly once.
        </p>
      </div>
      {sessionId ? <PaymentReturn key={sessionId} sessionId={sessionId} /> : null}
      {searchParams.get('checkout') === 'cancelled' ? (
        <Alert tone="info">
          <p>Checkout cancelled. Nothing was charged.</p>
        </Alert>
      ) : null}
      <BalanceCard />
      <TopUpForm />
      <RedeemGiftCardForm />
      <BillingHistory />
    </>
  );
}
