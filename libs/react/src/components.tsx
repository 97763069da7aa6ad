import type { ButtonHTMLAttributes, CSSProperties, HTMLAttributes } from 'react';
import { useState } from 'react';
import { useSwitchyard } from './provider.js';

/**
 * Themable by CSS variables, no stylesheet to import: `--sy-accent`, `--sy-accent-text`, `--sy-radius`,
 * `--sy-font`, `--sy-muted`. Every component takes `className` and `style` too.
 */
const buttonStyle: CSSProperties = {
  background: 'var(--sy-accent, #4338ca)',
  color: 'var(--sy-accent-text, #fff)',
  border: 'none',
  borderRadius: 'var(--sy-radius, 8px)',
  font: 'inherit',
  fontFamily: 'var(--sy-font, inherit)',
  fontWeight: 600,
  padding: '0.5em 1em',
  cursor: 'pointer',
};

type ButtonProps = Omit<ButtonHTMLAttributes<HTMLButtonElement>, 'onClick'>;

/** A button that runs `action` and says so while it runs (aria-busy); its error stays in useSwitchyard().error. */
function ActionButton({ action, style, disabled, ...rest }: ButtonProps & { action: () => Promise<void> }) {
  const [busy, setBusy] = useState(false);
  return (
    <button
      type="button"
      {...rest}
      style={{ ...buttonStyle, ...(busy || disabled ? { opacity: 0.6, cursor: 'default' } : {}), ...style }}
      disabled={busy || disabled}
      aria-busy={busy}
      onClick={() => {
        setBusy(true);
        action()
          .catch(() => undefined)
          .finally(() => setBusy(false));
      }}
    />
  );
}

export interface SignInButtonProps extends ButtonProps {
  mode?: 'popup' | 'redirect';
  signInLabel?: string;
  signOutLabel?: string;
}

/** "Sign in with Switchyard" while signed out, "Sign out" while signed in. */
export function SignInButton({
  mode = 'popup',
  signInLabel = 'Sign in with Switchyard',
  signOutLabel = 'Sign out',
  ...rest
}: SignInButtonProps) {
  const { status, signIn, signOut } = useSwitchyard();
  const signedIn = status === 'signed-in';
  return (
    <ActionButton
      {...rest}
      disabled={status === 'loading' || rest.disabled}
      action={signedIn ? signOut : () => signIn(mode)}
    >
      {signedIn ? signOutLabel : signInLabel}
    </ActionButton>
  );
}

export interface TopUpButtonProps extends ButtonProps {
  /** `account` (default) opens the billing page; `app` opens this app's caps. */
  limit?: 'account' | 'app';
  /** Called once the user is back with more room (retry the call then). */
  onDone?: () => void;
}

/** Opens the dashboard in a popup to add funds (or raise this app's cap) and waits until the user is back. */
export function TopUpButton({ limit = 'account', onDone, children, ...rest }: TopUpButtonProps) {
  const { topUp, raiseCap, status } = useSwitchyard();
  if (status !== 'signed-in') return null;
  return (
    <ActionButton
      {...rest}
      action={async () => {
        await (limit === 'app' ? raiseCap() : topUp());
        onDone?.();
      }}
    >
      {children ?? (limit === 'app' ? 'Raise this app’s cap' : 'Add funds')}
    </ActionButton>
  );
}

/** Money as it is: two significant digits under a cent (a model call costs fractions of one), never "$0.00" for some. */
export function formatMoney(amount: number): string {
  if (amount > 0 && amount < 0.01) return `$${Number(amount.toPrecision(2))}`;
  return `$${amount.toFixed(2)}`;
}

/** What the user can still spend through this app, announced politely when it changes. */
export function BalanceBadge({ style, ...rest }: HTMLAttributes<HTMLSpanElement>) {
  const { balance, status } = useSwitchyard();
  if (status !== 'signed-in' || !balance) return null;
  const capped = balance.available < balance.remainingBudget;
  return (
    <span
      role="status"
      aria-live="polite"
      title={`Budget left ${formatMoney(balance.remainingBudget)}${capped ? `; this app may spend ${formatMoney(balance.available)}` : ''}`}
      {...rest}
      style={{
        fontFamily: 'var(--sy-font, inherit)',
        color: 'var(--sy-muted, inherit)',
        fontVariantNumeric: 'tabular-nums',
        ...style,
      }}
    >
      {formatMoney(balance.available)}
      {capped ? ' (app cap)' : ''}
    </span>
  );
}
