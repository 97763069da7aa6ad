import { useEffect, useRef } from 'react';

import { Alert } from '../../../components/ui/alert';
import { Button } from '../../../components/ui/button';
import { formatMoney } from '../../../lib/money';
import { navigate } from '../../../lib/router';
import { useVerifyPayment } from '../api/verify-payment';

/**
 * Back from the checkout page with ?session_id=…: confirms the payment with the server, which credits it once
 * (a reload asks again and gets the same answer).
 */
export function PaymentReturn({ sessionId, onPaid }: { sessionId: string; onPaid?: () => void }) {
  const verify = useVerifyPayment();
  const { mutate } = verify;
  const asked = useRef<string | null>(null);

  useEffect(() => {
    if (asked.current === sessionId) return;
    asked.current = sessionId;
    mutate(sessionId, { onSuccess: (result) => result.status === 'paid' && onPaid?.() });
  }, [sessionId, mutate, onPaid]);

  const dismiss = () => navigate('/billing', { replace: true });
  const checkAgain = () => verify.mutate(sessionId);

  if (verify.isIdle || verify.isPending) {
    return (
      <p className="muted" role="status">
        Confirming your payment…
      </p>
    );
  }
  if (verify.isError) {
    return (
      <div className="stack">
        <Alert>Could not confirm your payment: {verify.error.message}</Alert>
        <div className="button-row">
          <Button variant="secondary" onClick={checkAgain}>
            Try again
          </Button>
          <Button variant="ghost" onClick={dismiss}>
            Dismiss
          </Button>
        </div>
      </div>
    );
  }
  const result = verify.data;
  return (
    <div className="stack">
      <Alert tone="info">
        {result.status === 'paid' ? (
          <p>
            Payment received: {formatMoney(result.amountAdded)} was added. Your balance is now{' '}
            {formatMoney(result.newBalance)}.
          </p>
        ) : result.status === 'expired' ? (
          <p>This checkout expired before it was paid. Nothing was charged.</p>
        ) : (
          <p>Your payment is not complete yet. If you paid, it can take a moment to confirm.</p>
        )}
      </Alert>
      <div className="button-row">
        {result.status === 'unpaid' ? (
          <Button variant="secondary" onClick={checkAgain}>
            Check again
          </Button>
        ) : null}
        <Button variant="ghost" onClick={dismiss}>
          Dismiss
        </Button>
      </div>
    </div>
  );
}
