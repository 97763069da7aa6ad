import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';

/** Micro-units of each window's limit and spend, for one key or one app of one user. */
export interface CapRow {
  scope: 'key' | 'app';
  /** The key's id, or the app's client_id. */
  id: string;
  name: string;
  userId: string;
  email: string;
  percent: number;
  limits: Record<'total' | 'daily' | 'weekly' | 'monthly', number | null>;
  spent: Record<'total' | 'daily' | 'weekly' | 'monthly', number>;
}

export interface LowBalanceRow {
  userId: string;
  email: string;
  balanceMicros: number;
  thresholdMicros: number;
}

const n = (value: unknown) => Number(value ?? 0);
const maybe = (value: unknown) => (value === null || value === undefined ? null : Number(value));

/**
 * The only code writing notification_settings and alert_state. The alerts' sweeps read other modules' tables in
 * one statement each, and never write them (docs/database.md): balances (usage), users (accounts), api_keys
 * (keys), oauth_consents and oauth_clients (consents, clients), reservations through sy_spend (usage).
 */
@Injectable()
export class NotificationsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** The account's settings row: undefined when it has none (the defaults apply). */
  async settings(
    userId: string,
  ): Promise<{ lowBalanceMicros: number | null; capAlertPercent: number | null } | undefined> {
    const rows: Record<string, unknown>[] = await this.dataSource.query(
      `SELECT low_balance_micros, cap_alert_percent FROM notification_settings WHERE user_id = $1`,
      [userId],
    );
    return rows[0]
      ? { lowBalanceMicros: maybe(rows[0].low_balance_micros), capAlertPercent: maybe(rows[0].cap_alert_percent) }
      : undefined;
  }

  async saveSettings(userId: string, lowBalanceMicros: number | null, capAlertPercent: number | null): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO notification_settings (user_id, low_balance_micros, cap_alert_percent) VALUES ($1, $2, $3)
       ON CONFLICT (user_id) DO UPDATE SET low_balance_micros = $2, cap_alert_percent = $3, updated_at = now()`,
      [userId, lowBalanceMicros, capAlertPercent],
    );
  }

  /**
   * Accounts (funded at least once, not deleted or disabled) whose balance moved within `sinceSeconds` and is now
   * below their low-balance threshold, without that alert fired since it last went back above.
   */
  async lowBalances(sinceSeconds: number, defaultMicros: number): Promise<LowBalanceRow[]> {
    const rows: Record<string, unknown>[] = await this.dataSource.query(
      `SELECT b.user_id, u.email, b.credits_micros - b.debits_micros AS balance,
              CASE WHEN s.user_id IS NULL THEN $2::bigint ELSE s.low_balance_micros END AS threshold
         FROM balances b
         JOIN users u ON u.id = b.user_id AND u.deleted_at IS NULL AND u.disabled_at IS NULL
         LEFT JOIN notification_settings s ON s.user_id = b.user_id
        WHERE b.updated_at > now() - make_interval(secs => $1) AND b.credits_micros > 0
          AND (s.user_id IS NULL OR s.low_balance_micros IS NOT NULL)
          AND b.credits_micros - b.debits_micros < CASE WHEN s.user_id IS NULL THEN $2::bigint ELSE s.low_balance_micros END
          AND NOT EXISTS (SELECT 1 FROM alert_state a WHERE a.user_id = b.user_id AND a.alert_key = 'low_balance')`,
      [sinceSeconds, defaultMicros],
    );
    return rows.map((row) => ({
      userId: String(row.user_id),
      email: String(row.email),
      balanceMicros: n(row.balance),
      thresholdMicros: n(row.threshold),
    }));
  }

  /** Re-arms the low-balance alert of accounts whose balance is back at or above their threshold (or turned it off). */
  async rearmLowBalances(defaultMicros: number): Promise<number> {
    const [, affected]: [unknown, number] = await this.dataSource.query(
      `DELETE FROM alert_state a USING balances b
        WHERE a.alert_key = 'low_balance' AND b.user_id = a.user_id
          AND NOT EXISTS (
            SELECT 1 FROM notification_settings s WHERE s.user_id = a.user_id AND s.low_balance_micros IS NULL)
          AND b.credits_micros - b.debits_micros >= COALESCE(
            (SELECT s.low_balance_micros FROM notification_settings s WHERE s.user_id = a.user_id), $1::bigint)`,
      [defaultMicros],
    );
    return affected;
  }

  /**
   * Keys and apps (of accounts not deleted) with a total, daily, weekly or monthly limit that reserved within
   * `sinceSeconds`, with what each window spent (sy_spend: settled plus held), for accounts whose alert is on.
   */
  async capsInUse(sinceSeconds: number, defaultPercent: number): Promise<CapRow[]> {
    const percent = `CASE WHEN s.user_id IS NULL THEN $2::int ELSE s.cap_alert_percent END`;
    const anyLimit = (t: string) =>
      `(${t}.limit_total_micros IS NOT NULL OR ${t}.limit_daily_micros IS NOT NULL OR ${t}.limit_weekly_micros IS NOT NULL OR ${t}.limit_monthly_micros IS NOT NULL)`;
    const rows: Record<string, unknown>[] = await this.dataSource.query(
      `SELECT 'key' AS scope, k.id::text AS id, k.name, k.user_id, u.email, ${percent} AS percent,
              k.limit_total_micros AS l_total, k.limit_daily_micros AS l_daily, k.limit_weekly_micros AS l_weekly,
              k.limit_monthly_micros AS l_monthly, sp.total, sp.daily, sp.weekly, sp.monthly
         FROM api_keys k
         JOIN users u ON u.id = k.user_id AND u.deleted_at IS NULL
         LEFT JOIN notification_settings s ON s.user_id = k.user_id
         CROSS JOIN LATERAL sy_spend(k.id, NULL, NULL) sp
        WHERE k.revoked_at IS NULL AND ${anyLimit('k')} AND ${percent} IS NOT NULL
          AND EXISTS (SELECT 1 FROM reservations r WHERE r.api_key_id = k.id AND r.created_at > now() - make_interval(secs => $1))
       UNION ALL
       SELECT 'app', o.client_id, o.client_name, c.user_id, u.email, ${percent},
              c.limit_total_micros, c.limit_daily_micros, c.limit_weekly_micros, c.limit_monthly_micros,
              sp.total, sp.daily, sp.weekly, sp.monthly
         FROM oauth_consents c
         JOIN oauth_clients o ON o.id = c.client_pk
         JOIN users u ON u.id = c.user_id AND u.deleted_at IS NULL
         LEFT JOIN notification_settings s ON s.user_id = c.user_id
         CROSS JOIN LATERAL sy_spend(NULL, c.user_id, o.client_id) sp
        WHERE ${anyLimit('c')} AND ${percent} IS NOT NULL
          AND EXISTS (SELECT 1 FROM reservations r WHERE r.user_id = c.user_id AND r.oauth_client_id = o.client_id
                        AND r.created_at > now() - make_interval(secs => $1))`,
      [sinceSeconds, defaultPercent],
    );
    return rows.map((row) => ({
      scope: row.scope as 'key' | 'app',
      id: String(row.id),
      name: String(row.name ?? ''),
      userId: String(row.user_id),
      email: String(row.email),
      percent: n(row.percent),
      limits: {
        total: maybe(row.l_total),
        daily: maybe(row.l_daily),
        weekly: maybe(row.l_weekly),
        monthly: maybe(row.l_monthly),
      },
      spent: { total: n(row.total), daily: n(row.daily), weekly: n(row.weekly), monthly: n(row.monthly) },
    }));
  }

  /** Records that an alert fired; true only for the one caller (on any instance) whose row went in. */
  async fire(userId: string, alertKey: string): Promise<boolean> {
    const rows: unknown[] = await this.dataSource.query(
      `INSERT INTO alert_state (user_id, alert_key) VALUES ($1, $2) ON CONFLICT DO NOTHING RETURNING 1`,
      [userId, alertKey],
    );
    return rows.length > 0;
  }

  /** Forgets the calendar windows' alerts of more than 40 days ago (their keys name a past period). */
  async purge(): Promise<void> {
    await this.dataSource.query(
      `DELETE FROM alert_state WHERE alert_key LIKE 'cap:%' AND fired_at < now() - interval '40 days'
         AND alert_key NOT LIKE '%:total:%'`,
    );
  }
}
