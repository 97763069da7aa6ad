import { Column } from 'typeorm';
import type { KeyLimits } from '@switchyard/shared-dto';

/**
 * The five spend caps an API key or an authorized app may carry (docs/budgets.md), as API fields in currency
 * units and as entity columns in micro-units (bigint, read back as strings).
 */
export const LIMIT_COLUMNS = {
  total: 'limitTotalMicros',
  daily: 'limitDailyMicros',
  weekly: 'limitWeeklyMicros',
  monthly: 'limitMonthlyMicros',
  perRequest: 'limitPerRequestMicros',
} as const;

export type LimitColumn = (typeof LIMIT_COLUMNS)[keyof typeof LIMIT_COLUMNS];
export type LimitColumns = Record<LimitColumn, string | null>;

const units = (micros: string | null | undefined) =>
  micros === null || micros === undefined ? null : Number(micros) / 1e6;
const micros = (value: number | null | undefined) =>
  value === undefined ? undefined : value === null ? null : String(Math.round(value * 1e6));

/** The caps of a row, in currency units. */
export function limitsOf(row: LimitColumns): KeyLimits {
  return {
    total: units(row.limitTotalMicros),
    daily: units(row.limitDailyMicros),
    weekly: units(row.limitWeeklyMicros),
    monthly: units(row.limitMonthlyMicros),
    perRequest: units(row.limitPerRequestMicros),
  };
}

/** The column changes a partial update asks for: omitted fields stay, null clears. */
export function limitChanges(update: Partial<KeyLimits>): Partial<LimitColumns> {
  const changes: Partial<LimitColumns> = {};
  for (const [field, column] of Object.entries(LIMIT_COLUMNS)) {
    const value = micros(update[field as keyof KeyLimits]);
    if (value !== undefined) changes[column] = value;
  }
  return changes;
}

/**
 * The five cap columns, for entities that carry them (api_keys, oauth_consents) to extend: micro-units, bigint
 * (read back as strings), null for no cap; enforced by sy_reserve.
 */
export abstract class SpendLimitColumns implements LimitColumns {
  @Column({ name: 'limit_total_micros', type: 'bigint', nullable: true })
  limitTotalMicros: string | null;

  @Column({ name: 'limit_daily_micros', type: 'bigint', nullable: true })
  limitDailyMicros: string | null;

  @Column({ name: 'limit_weekly_micros', type: 'bigint', nullable: true })
  limitWeeklyMicros: string | null;

  @Column({ name: 'limit_monthly_micros', type: 'bigint', nullable: true })
  limitMonthlyMicros: string | null;

  @Column({ name: 'limit_per_request_micros', type: 'bigint', nullable: true })
  limitPerRequestMicros: string | null;
}
