/**
 * The sandbox checkout page (STRIPE_SECRET_KEY unset): a local stand-in for Stripe's hosted page, clearly
 * labelled, so a fresh install can try the whole top-up flow. "Pay" posts a plain form (no script).
 */
export interface SandboxPageInput {
  sessionId: string;
  amount: number;
  currency: string;
  state: 'open' | 'paid' | 'expired';
  payAction: string;
  returnUrl: string;
  cancelUrl: string;
}

export const SANDBOX_PAGE_CSP =
  "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

const escape = (text: string) =>
  text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string,
  );

export function renderSandboxPage(input: SandboxPageInput): string {
  const amount = new Intl.NumberFormat('en-US', { style: 'currency', currency: input.currency.toUpperCase() }).format(
    input.amount,
  );
  const body =
    input.state === 'open'
      ? `<form method="post" action="${escape(input.payAction)}">
      <button type="submit">Pay ${escape(amount)}</button>
    </form>
    <p><a href="${escape(input.cancelUrl)}">Cancel and go back</a></p>`
      : input.state === 'paid'
        ? `<p role="status">This session is already paid.</p>
    <p><a href="${escape(input.returnUrl)}">Back to billing</a></p>`
        : `<p role="alert">This session has expired. Start a new top-up from the billing page.</p>
    <p><a href="${escape(input.cancelUrl)}">Back to billing</a></p>`;
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <meta name="robots" content="noindex">
  <title>Sandbox checkout · Switchyard</title>
  <style>
    body { font-family: system-ui, sans-serif; background: #f4f5f7; color: #1d2330; margin: 0; }
    main { max-width: 28rem; margin: 4rem auto; background: #fff; border-radius: 12px; padding: 2rem; box-shadow: 0 1px 4px rgba(0,0,0,.1); }
    .banner { background: #fff4d6; border: 1px solid #e0b84c; border-radius: 8px; padding: .75rem 1rem; font-weight: 600; }
    .amount { font-size: 2rem; font-weight: 700; margin: 1.5rem 0 .25rem; }
    button { font: inherit; font-weight: 600; background: #3654d6; color: #fff; border: 0; border-radius: 8px; padding: .75rem 1.5rem; cursor: pointer; width: 100%; }
    code { font-size: .8rem; color: #5b6477; word-break: break-all; }
  </style>
</head>
<body>
  <main>
    <h1>Switchyard checkout</h1>
    <p class="banner" role="note">Sandbox — no real card is charged. Payments are simulated because this server has no Stripe key configured.</p>
    <p class="amount">${escape(amount)}</p>
    <p>Credit for your Switchyard balance</p>
    ${body}
    <p><code>${escape(input.sessionId)}</code></p>
  </main>
</body>
</html>
`;
}
