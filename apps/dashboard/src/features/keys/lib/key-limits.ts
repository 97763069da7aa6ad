// A key's limits and expiry as people type them on the API keys page, and back. Money limits reuse the caps'
// parser (lib/money.ts): blank is "no limit", an amount has at most 6 decimals and at most SPEND_LIMIT_MAX.

import { KEY_EXPIRY_MAX_DAYS } from '@switchyard/shared-dto';
import type { ApiKeyResponse, KeyLimits, KeyLimitsUpdateRequest } from '@switchyard/shared-dto';

import { capInputValue, parseCapInput } from '../../../lib/money';

export const MONEY_LIMITS = [
  'perRequest',
  'daily',
  'weekly',
  'monthly',
  'total',
] as const satisfies readonly (keyof KeyLimits)[];

export type KeyLimitField = (typeof MONEY_LIMITS)[number] | 'requestsPerMinute';

export type KeyLimitInputs = Record<KeyLimitField, string>;

export const LIMIT_LABELS: Record<KeyLimitField, string> = {
  perRequest: 'Per request',
  daily: 'Per day',
  weekly: 'Per week',
  monthly: 'Per month',
  total: 'In total',
  requestsPerMinute: 'Requests per minute',
};

export const EMPTY_LIMIT_INPUTS: KeyLimitInputs = {
  perRequest: '',
  daily: '',
  weekly: '',
  monthly: '',
  total: '',
  requestsPerMinute: '',
};

export function limitInputsFrom(key: Pick<ApiKeyResponse, 'limits' | 'requestsPerMinute'>): KeyLimitInputs {
  return {
    perRequest: capInputValue(key.limits.perRequest),
    daily: capInputValue(key.limits.daily),
    weekly: capInputValue(key.limits.weekly),
    monthly: capInputValue(key.limits.monthly),
    total: capInputValue(key.limits.total),
    requestsPerMinute: capInputValue(key.requestsPerMinute),
  };
}

export type Parsed<T, F extends string> =
  { ok: true; value: T } | { ok: false; problems: Partial<Record<F, string[]>> };

/** A rate as typed: blank is the server's default (null); otherwise a whole number from 1 to 1,000,000. */
function parseRate(text: string): { ok: true; value: number | null } | { ok: false; problem: string } {
  const trimmed = text.trim();
  if (trimmed === '') return { ok: true, value: null };
  if (!/^\d+$/.test(trimmed) || Number(trimmed) < 1 || Number(trimmed) > 1_000_000)
    return { ok: false, problem: 'Enter a whole number of requests from 1 to 1,000,000, or leave it blank.' };
  return { ok: true, value: Number(trimmed) };
}

/** Every limit as the API takes it (null clears one), or what is wrong with each field. */
export function parseLimitInputs(inputs: KeyLimitInputs): Parsed<Required<KeyLimitsUpdateRequest>, KeyLimitField> {
  const problems: Partial<Record<KeyLimitField, string[]>> = {};
  const value: Partial<Required<KeyLimitsUpdateRequest>> = {};
  for (const field of MONEY_LIMITS) {
    const parsed = parseCapInput(inputs[field]);
    if (parsed.ok) value[field] = parsed.value;
    else problems[field] = [parsed.problem.replace('no cap', 'no limit').replace('a cap', 'a limit')];
  }
  const rate = parseRate(inputs.requestsPerMinute);
  if (rate.ok) value.requestsPerMinute = rate.value;
  else problems.requestsPerMinute = [rate.problem];
  return Object.keys(problems).length
    ? { ok: false, problems }
    : { ok: true, value: value as Required<KeyLimitsUpdateRequest> };
}

/**
 * An expiry date as picked (`yyyy-mm-dd`, a UTC calendar day): the key works through that day and stops at the
 * next UTC midnight. Blank: never expires.
 */
export function parseExpiryDate(
  text: string,
  now = new Date(),
): { ok: true; value: string | null } | { ok: false; problem: string } {
  const trimmed = text.trim();
  if (trimmed === '') return { ok: true, value: null };
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(trimmed);
  const day = match ? Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3])) : NaN;
  if (!match || Number.isNaN(day) || new Date(day).toISOString().slice(0, 10) !== trimmed)
    return { ok: false, problem: 'Pick a date, or leave it blank for a key that does not expire.' };
  const end = day + 86_400_000;
  if (end <= now.getTime()) return { ok: false, problem: 'Pick today or a later date: that day is over.' };
  if (end > now.getTime() + KEY_EXPIRY_MAX_DAYS * 86_400_000)
    return { ok: false, problem: 'Pick a date within the next ten years.' };
  return { ok: true, value: new Date(end).toISOString() };
}

/** "$1.50 per day, 30 requests per minute", or "No limits". */
export function describeLimits(
  key: Pick<ApiKeyResponse, 'limits' | 'requestsPerMinute'>,
  money: (units: number) => string,
): string {
  const parts: string[] = [];
  const phrases: Record<(typeof MONEY_LIMITS)[number], string> = {
    perRequest: 'per request',
    daily: 'per day',
    weekly: 'per week',
    monthly: 'per month',
    total: 'in total',
  };
  for (const field of MONEY_LIMITS) {
    const value = key.limits[field];
    if (value !== null) parts.push(`${money(value)} ${phrases[field]}`);
  }
  if (key.requestsPerMinute !== null) parts.push(`${key.requestsPerMinute} requests per minute`);
  return parts.length ? parts.join(', ') : 'No limits';
}

/** Revoked keys are hidden unless asked for; the others keep the server's order (newest first). */
export function visibleKeys<K extends Pick<ApiKeyResponse, 'status'>>(keys: K[], showRevoked: boolean): K[] {
  return showRevoked ? keys : keys.filter((key) => key.status !== 'Revoked');
}
