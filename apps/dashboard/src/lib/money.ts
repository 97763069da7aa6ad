// Money on the dashboard: the API speaks currency units as JSON numbers (docs/decisions.md#names-and-defaults), exact to the
// micro-unit (6 decimals); ledger debits can be fractions of a cent. Caps are typed by people, so the parser is
// strict and says what is wrong.

import { SPEND_LIMIT_DECIMALS, SPEND_LIMIT_MAX } from '@switchyard/shared-dto';
import type { ConsentLimits } from '@switchyard/shared-dto';

const money = new Intl.NumberFormat('en-US', {
  style: 'currency',
  currency: 'USD',
  minimumFractionDigits: 2,
  maximumFractionDigits: 6,
});

/**
 * Every sum of money on the dashboard, as it is: exact to the micro-unit the ledger keeps, at least to the cent, so
 * nothing spent reads as "$0.00" and tables, charts and cards show the same figure: "$21.13", "$0.000214",
 * "$4.999786", "-$0.000035", "$1,234.50". One formatter for balances, totals, costs, credits and caps alike
 * (docs/dashboard.md, "Money").
 */
export function formatMoney(units: number): string {
  if (!Number.isFinite(units)) return '—';
  // Rounded to the micro-unit first, so float noise (0.1 + 0.2) never shows as a seventh decimal.
  const micros = Math.round(units * 1e6) / 1e6;
  return money.format(micros === 0 ? 0 : micros);
}

/** A cap for an input's value: '' when there is none. */
export function capInputValue(value: number | null | undefined): string {
  return value === null || value === undefined ? '' : String(value);
}

export type CapParse = { ok: true; value: number | null } | { ok: false; problem: string };

/** A cap as typed: blank is "no cap" (null); otherwise a plain non-negative amount with at most 6 decimals. */
export function parseCapInput(text: string): CapParse {
  const trimmed = text.trim();
  if (trimmed === '') return { ok: true, value: null };
  if (!/^\d+(?:\.\d+)?$|^\.\d+$/.test(trimmed)) {
    return { ok: false, problem: 'Enter an amount such as 5 or 0.25, or leave it blank for no cap.' };
  }
  const decimals = trimmed.includes('.') ? trimmed.split('.')[1].length : 0;
  if (decimals > SPEND_LIMIT_DECIMALS)
    return { ok: false, problem: `Use at most ${SPEND_LIMIT_DECIMALS} decimal places.` };
  const value = Number(trimmed);
  if (value > SPEND_LIMIT_MAX)
    return { ok: false, problem: `The most a cap can be is ${SPEND_LIMIT_MAX.toLocaleString()}.` };
  return { ok: true, value };
}

export interface CapInputs {
  monthly: string;
  perRequest: string;
}

/** The caps these pages edit; the API takes the others too (total, daily, weekly). */
export type CapValues = Pick<ConsentLimits, 'monthly' | 'perRequest'>;

export type CapsParse =
  { ok: true; value: CapValues } | { ok: false; problems: Partial<Record<keyof CapInputs, string[]>> };

/** Both spend caps of an app (ConsentLimits), as typed on the consent page or the authorized-apps page. */
export function parseCapInputs(inputs: CapInputs): CapsParse {
  const monthly = parseCapInput(inputs.monthly);
  const perRequest = parseCapInput(inputs.perRequest);
  if (monthly.ok && perRequest.ok) return { ok: true, value: { monthly: monthly.value, perRequest: perRequest.value } };
  return {
    ok: false,
    problems: {
      ...(monthly.ok ? {} : { monthly: [monthly.problem] }),
      ...(perRequest.ok ? {} : { perRequest: [perRequest.problem] }),
    },
  };
}

export function capInputsFrom(values: CapValues | null | undefined): CapInputs {
  return { monthly: capInputValue(values?.monthly), perRequest: capInputValue(values?.perRequest) };
}
