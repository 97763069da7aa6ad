import {
  SPEND_LIMIT_NAMES,
  type RefusedLimit,
  type SpendLimitName,
  type SpendLimitScope,
} from '@switchyard/shared-dto';
import { moneyWords } from '../../../common/money-words';
import type { AppConfig } from '../../../config/config.schema';
import { UsageErrorCode, UsageException } from '../usage.exception';
import { toUnits } from './ledger.service';

/** What sy_reserve's `tripped` names: a key's cap ('daily'), an app's ('app_daily'); null for 'account' or none. */
export function parseTripped(tripped: string | null): { scope: SpendLimitScope; limit: SpendLimitName } | null {
  if (!tripped) return null;
  const scope: SpendLimitScope = tripped.startsWith('app_') ? 'app' : 'key';
  const limit = scope === 'app' ? tripped.slice(4) : tripped;
  return (SPEND_LIMIT_NAMES as readonly string[]).includes(limit) ? { scope, limit: limit as SpendLimitName } : null;
}

const WINDOW_WORDS: Record<SpendLimitName, string> = {
  total: 'in all',
  daily: 'today (UTC)',
  weekly: 'this week (UTC, from Monday)',
  monthly: 'this month (UTC)',
  per_request: '',
};

/** When a calendar window's spend starts again from zero: the next UTC midnight, Monday or first of the month. */
export function windowResetsAt(limit: SpendLimitName, now = new Date()): string | null {
  const day = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  if (limit === 'daily') return new Date(day + 86_400_000).toISOString();
  if (limit === 'weekly') return new Date(day + ((8 - now.getUTCDay()) % 7 || 7) * 86_400_000).toISOString();
  if (limit === 'monthly') return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)).toISOString();
  return null;
}

/** A limit's value and what its window has spent (micro-units), read after the refusal. */
export interface LimitFigures {
  limitMicros: number;
  spentMicros: number;
}

/** Who refused, as the reservation's request names it. */
interface RefusedCall {
  userId: string;
  apiKeyId: string | null;
  oauthClientId: string | null;
  minimumMicros: number;
}

/**
 * The refusal of a call that a key's spend limit or an app's cap cannot cover (docs/budgets.md, "Which limit
 * refused a call"): 403 `spend_limit_exceeded`, apart from `budget_exhausted` (the account's balance), naming the
 * scope and the limit with its figures. Null when the balance refused (`tripped` is 'account'). The figures are read
 * on the refusal path only, after sy_reserve said which limit tripped, so a served call pays nothing for them;
 * they are those of the moment after the refusal (a concurrent call may have settled meanwhile).
 */
export async function spendLimitExceeded(
  ledger: { limitFigures(scope: SpendLimitScope, limit: SpendLimitName, call: RefusedCall): Promise<LimitFigures> },
  config: Pick<AppConfig, 'publicUrl'>,
  call: RefusedCall,
  tripped: string | null,
  /** The figure `remainingBudget` states (what the usage summary shows). */
  balanceMicros: number,
): Promise<UsageException | null> {
  const named = parseTripped(tripped);
  if (!named) return null;
  const { scope, limit } = named;
  const figures = await ledger.limitFigures(scope, limit, call);
  const needed = call.minimumMicros;
  const name = limit.replace('_', '-');
  const what = scope === 'key' ? `This API key's ${name} spend limit` : `The ${name} spending cap you set for this app`;
  const message =
    limit === 'per_request'
      ? `${what} (${moneyWords(Math.max(0, figures.limitMicros))}) is below what this call needs at least (${moneyWords(needed)})`
      : `${what} is reached: ${moneyWords(Math.max(0, figures.spentMicros))} of ${moneyWords(Math.max(0, figures.limitMicros))} spent ${WINDOW_WORDS[limit]}; this call needs at least ${moneyWords(needed)}`;
  return new UsageException(UsageErrorCode.SPEND_LIMIT_EXCEEDED, message, {
    limit,
    scope,
    ...(scope === 'key' ? { keyId: call.apiKeyId } : { clientId: call.oauthClientId }),
    limitAmount: toUnits(figures.limitMicros),
    spent: limit === 'per_request' ? null : toUnits(figures.spentMicros),
    needed: toUnits(needed),
    resetsAt: windowResetsAt(limit),
    remainingBudget: toUnits(Math.max(0, balanceMicros)),
    settingsUrl: `${config.publicUrl}/${scope === 'key' ? 'keys' : 'consents'}`,
  });
}

/**
 * What a usage record keeps of a refusal (usage_records.refused_limit): 'account' for budget_exhausted,
 * 'key:daily', 'app:per_request', … for spend_limit_exceeded; null for any other error.
 */
export function refusedLimitOfError(error: {
  code: string;
  options: { extra?: Record<string, unknown> };
}): string | null {
  const code: string = error.code;
  if (code === (UsageErrorCode.BUDGET_EXHAUSTED as string)) return 'account';
  if (code !== (UsageErrorCode.SPEND_LIMIT_EXCEEDED as string)) return null;
  const { scope, limit } = error.options.extra ?? {};
  return `${String(scope)}:${String(limit)}`;
}

/** The stored refused_limit as the activity shows it. */
export function refusedLimitOf(stored: unknown): RefusedLimit | null {
  if (stored === 'account') return { scope: 'account', limit: null };
  if (typeof stored !== 'string') return null;
  const [scope, limit] = stored.split(':');
  if ((scope !== 'key' && scope !== 'app') || !(SPEND_LIMIT_NAMES as readonly string[]).includes(limit)) return null;
  return { scope, limit: limit as SpendLimitName };
}
