// The Requests page's filters as typed, and the activity query they become (GET /api/v1/usage/me/activity). Dates
// are UTC calendar dates, as on the Usage page: the API reads a bare date as `to` as the whole of that day.
import type { ActivityRecord, ActivityStatusFilter, UsageActivityQuery } from '@switchyard/shared-dto';

export interface RequestFilters {
  /** An API key's id, or '' for every key. */
  keyId: string;
  /** An OAuth app's client id, or '' for every app. */
  appId: string;
  model: string;
  status: ActivityStatusFilter | '';
  /** YYYY-MM-DD or '' (no bound). */
  from: string;
  to: string;
}

export const NO_FILTERS: RequestFilters = { keyId: '', appId: '', model: '', status: '', from: '', to: '' };

export const STATUS_OPTIONS: { value: ActivityStatusFilter | ''; label: string }[] = [
  { value: '', label: 'Any status' },
  { value: 'success', label: 'Succeeded' },
  { value: 'error', label: 'Any failure' },
  { value: 'upstream_error', label: 'Provider error' },
  { value: 'rejected', label: 'Refused' },
  { value: 'timeout', label: 'Timed out' },
  { value: 'client_closed', label: 'Caller left' },
];

const STATUS_WORDS: Record<string, string> = Object.fromEntries(
  STATUS_OPTIONS.filter((option) => option.value).map((option) => [option.value, option.label]),
);

/** A call's ending in words ("Succeeded", "Provider error"); an unknown one as written, underscores as spaces. */
export function statusWords(status: string): string {
  return STATUS_WORDS[status] ?? status.replace(/_/g, ' ');
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const realDate = (iso: string) => DATE.test(iso) && new Date(`${iso}T00:00:00Z`).toISOString().startsWith(iso);

/** What is wrong with the typed filters, in words; null when the page can ask for them. */
export function filtersProblem(filters: RequestFilters): string | null {
  if (filters.from && !realDate(filters.from)) return 'Enter the start date as a full date, or clear it.';
  if (filters.to && !realDate(filters.to)) return 'Enter the end date as a full date, or clear it.';
  if (filters.from && filters.to && filters.from > filters.to) return 'The start date must not be after the end date.';
  if (filters.model.trim().length > 200) return 'A model name is at most 200 characters.';
  return null;
}

/** The API's query for the filters: the set ones only (the model trimmed). */
export function activityQuery(filters: RequestFilters, limit: number, cursor: string | null): UsageActivityQuery {
  const model = filters.model.trim();
  return {
    limit,
    cursor: cursor ?? undefined,
    keyId: filters.keyId || undefined,
    appId: filters.appId || undefined,
    model: model || undefined,
    status: filters.status || undefined,
    from: filters.from || undefined,
    to: filters.to || undefined,
  };
}

/** Whether any filter is set. */
export function filtersSet(filters: RequestFilters): boolean {
  return Object.values(filters).some((value) => value !== '');
}

/** "1.2 s", "340 ms"; "—" when not known. */
export function formatDuration(ms: number | null): string {
  if (ms === null || !Number.isFinite(ms)) return '—';
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
}

const REASONS: Record<string, string> = {
  success: 'Charged what the call used; the rest of the hold was released.',
  no_output: 'The model wrote nothing: only the input was charged.',
  client_gone: 'The caller left before the end: charged for what was delivered.',
  upstream_error: 'The provider failed: nothing used, the hold was released.',
  timeout: 'The provider took too long: the hold was released, less anything delivered.',
  rejected: 'Refused before it reached a model: nothing was held.',
};

/** Why the money went as it did, for the detail panel. */
export function moneyReason(money: ActivityRecord['money']): string {
  if (money.outcome === 'none') return 'Nothing was held: the call was refused or costs nothing.';
  if (money.outcome === 'open') return 'Still held: the call has not been settled yet.';
  return (
    (money.reason && REASONS[money.reason]) ?? `Settled (${(money.reason ?? 'no reason given').replace(/_/g, ' ')}).`
  );
}

const LIMIT_WORDS: Record<string, string> = {
  per_request: 'per-request',
  daily: 'daily',
  weekly: 'weekly',
  monthly: 'monthly',
  total: 'total',
};

/** Which limit refused a call, in words: "the key's daily spend limit", "the app's monthly cap", "the balance". */
export function refusedLimitWords(refused: ActivityRecord['refusedLimit']): string | null {
  if (!refused) return null;
  if (refused.scope === 'account') return 'the account’s balance';
  const limit = LIMIT_WORDS[refused.limit ?? ''] ?? refused.limit ?? '';
  return refused.scope === 'key' ? `the key’s ${limit} spend limit` : `the ${limit} cap you set for the app`;
}
