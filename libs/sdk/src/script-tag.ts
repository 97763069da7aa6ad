/**
 * The script-tag build (`<script src="https://switchyard.example.com/sdk/v1/switchyard.js">`): `Switchyard.init`
 * makes the client, finishes a sign-in that came back to this page, and wires the page's elements by themselves:
 * `data-switchyard-button` signs in and out, `data-switchyard-balance` shows what the user can spend.
 */
import { createSwitchyard, type Switchyard, type SwitchyardOptions } from './client.js';
import * as errors from './errors.js';

const BALANCE_REFRESH_MS = 5 * 60_000;

/** The server this script was loaded from: the default baseUrl. */
const scriptOrigin =
  typeof document !== 'undefined' && document.currentScript instanceof HTMLScriptElement
    ? new URL(document.currentScript.src).origin
    : undefined;

function money(amount: number): string {
  // Model calls cost fractions of a cent: two significant digits below a cent, never "$0.00" for money left.
  return amount > 0 && amount < 0.01 ? `$${Number(amount.toPrecision(2))}` : `$${amount.toFixed(2)}`;
}

function wire(client: Switchyard): void {
  const buttons = () => document.querySelectorAll<HTMLElement>('[data-switchyard-button]');
  const balances = () => document.querySelectorAll<HTMLElement>('[data-switchyard-balance]');
  const render = () => {
    const { status, user } = client.state;
    for (const button of buttons()) {
      button.textContent =
        status === 'signed-in' ? `Sign out${user?.name ? ` (${user.name})` : ''}` : 'Sign in with Switchyard';
      button.setAttribute('aria-pressed', String(status === 'signed-in'));
    }
    if (status === 'signed-out') for (const element of balances()) element.textContent = '';
    else void showBalance();
  };
  const showBalance = async () => {
    try {
      const { available } = await client.balance();
      for (const element of balances()) element.textContent = money(available);
    } catch {
      for (const element of balances()) element.textContent = '';
    }
  };
  document.addEventListener('click', (event) => {
    const button = (event.target as Element | null)?.closest?.('[data-switchyard-button]');
    if (!button) return;
    event.preventDefault();
    if (client.state.status === 'signed-in') void client.signOut();
    else void client.signIn().catch((error: unknown) => console.warn('Switchyard sign-in:', error));
  });
  client.subscribe(render);
  setInterval(() => client.state.status === 'signed-in' && void showBalance(), BALANCE_REFRESH_MS);
  render();
}

/** Creates the client (baseUrl defaults to the server this script came from) and wires the page. */
function init(options: Omit<SwitchyardOptions, 'baseUrl'> & { baseUrl?: string }): Switchyard {
  const baseUrl = options.baseUrl ?? scriptOrigin;
  if (!baseUrl) throw new errors.SwitchyardError('Switchyard.init needs a baseUrl');
  const client = createSwitchyard({ ...options, baseUrl });
  const ready = () => {
    wire(client);
    void client.handleRedirect().catch((error: unknown) => console.warn('Switchyard sign-in:', error));
  };
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', ready, { once: true });
  else ready();
  return client;
}

export { createSwitchyard, init };
export const {
  AuthorizationError,
  BudgetExhaustedError,
  NotSignedInError,
  PopupError,
  SwitchyardError,
  toSwitchyardError,
} = errors;
