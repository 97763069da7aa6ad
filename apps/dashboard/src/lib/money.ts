// Money on the dashboard: the API speaks currency units as JSON numbers (docs/decisions.md#names-and-defaults), exact to the
// micro-unit (6 decimals); ledger debits can be fractions of a cent. Caps are typed by people, so the parser is
// strict and says what is wrong.

import { SPEND_LIMIT_DECIMALS, SPEND_LIMIT_MAX } from '@switchyard/shared-dto';
import type { ConsentLimits } from '@switchyard/shared-dto';

const formats = new Map<number, Intl.NumberFormat>();

function currency(digits: number): Intl.NumberFormat {
  let format = formats.get(digits);
  if (!format) {
    format = new Intl.NumberFormat('en-US', {
      style: 'currency',
      currency: 'USD',
      minimumFractionDigits: 2,
      maximumFractionDigits: digits,
    });
    formats.set(digits, format);
  }
  return format;
}

/** "$15.00", "-$0.12": balances, totals, credits, always with the currency and two decimals (rounded to the cent). */
export function formatMoney(units: number): string {
  return currency(2).format(units);
}

/** A sum charged (positive): like formatMoney, but "under $0.01" rather than "$0.00" when it is not zero. */
export function formatCharge(units: number): string {
  return units > 0 && units < 0.005 ? `under ${currency(2).format(0.01)}` : currency(2).format(units);
}

/**
 * One call's cost: two decimals like any amount, more only when the whole cost is under a cent and not zero
 * ("$0.000123"), so a cheap call does not read as free.
 */
export function formatCallCost(units: number): string {
  return units !== 0 && Math.abs(units) < 0.01 ? currency(6).format(units) : currency(2).format(units);
}

/** A cap or limit as the user typed it: cents, and micro-units only when it has them ("$0.005"). */
export function formatExactMoney(units: number): string {
  return currency(Number.isInteger(Math.round(units * 100 * 1e4) / 1e4) ? 2 : 6).format(units);
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
