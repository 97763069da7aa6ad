import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import type { OAuthScope } from '@switchyard/shared-dto';
import type { LimitColumns } from '../../common/spend-limits';
import { ConsentEntity } from './entities/consent.entity';

export interface ConsentRow extends ConsentEntity {
  clientId: string;
  clientName: string;
  redirectUris: string[];
  /** The app's markup now: the user's calls are priced at the lower of it and `markupPercent` (what they agreed to). */
  appMarkupPercent: number;
}

/**
 * The only code that writes oauth_consents. Reads join oauth_clients (read only) for the public client id and
 * name, which every consent list shows. Deleting a consent deletes its grants and their tokens (foreign keys).
 */
@Injectable()
export class ConsentsRepository {
  constructor(@InjectRepository(ConsentEntity) private readonly consents: Repository<ConsentEntity>) {}

  find(userId: string, clientPk: number): Promise<ConsentEntity | null> {
    return this.consents.findOneBy({ userId, clientPk });
  }

  /** Creates the consent or widens its scopes to the union, in one statement, so racing grants lose nothing. */
  /** Records (or widens) a consent; `markupPercent` is what the user agreed to now (never above the app's rate). */
  async grant(userId: string, clientPk: number, scopes: OAuthScope[], markupPercent: number): Promise<void> {
    await this.consents.query(
      `INSERT INTO oauth_consents (user_id, client_pk, scopes, markup_percent)
       SELECT $1, $2, $3, LEAST($4::int, o.markup_percent) FROM oauth_clients o WHERE o.id = $2
       ON CONFLICT (user_id, client_pk) DO UPDATE SET
         scopes = ARRAY(SELECT DISTINCT s FROM unnest(oauth_consents.scopes || EXCLUDED.scopes) AS s ORDER BY s),
         markup_percent = EXCLUDED.markup_percent`,
      [userId, clientPk, [...scopes].sort(), markupPercent],
    );
  }

  /** A cut of the app's markup applies to every user at once: no consent keeps a rate above it. */
  async capMarkup(clientPk: number, markupPercent: number): Promise<void> {
    await this.consents.query(
      'UPDATE oauth_consents SET markup_percent = $2 WHERE client_pk = $1 AND markup_percent > $2',
      [clientPk, markupPercent],
    );
  }

  /** Per app: its users still on a rate below the app's markup (a raise waits for their re-consent). */
  async countOnOldRate(clientPks: number[]): Promise<Map<number, number>> {
    if (!clientPks.length) return new Map();
    const rows: { client_pk: number; users: string }[] = await this.consents.query(
      `SELECT c.client_pk, count(*) AS users FROM oauth_consents c JOIN oauth_clients o ON o.id = c.client_pk
        WHERE c.client_pk = ANY($1::int[]) AND c.markup_percent < o.markup_percent GROUP BY c.client_pk`,
      [clientPks],
    );
    return new Map(rows.map((row) => [Number(row.client_pk), Number(row.users)]));
  }

  async listByUser(userId: string): Promise<ConsentRow[]> {
    const rows: Record<string, unknown>[] = await this.consents.query(
      `SELECT c.user_id, c.client_pk, c.scopes, c.granted_at, c.last_used_at, c.limit_total_micros, c.limit_daily_micros,
              c.limit_weekly_micros, c.limit_monthly_micros, c.limit_per_request_micros, c.markup_percent,
              o.client_id, o.client_name, o.redirect_uris, o.markup_percent AS app_markup_percent
         FROM oauth_consents c JOIN oauth_clients o ON o.id = c.client_pk
        WHERE c.user_id = $1 ORDER BY c.granted_at DESC`,
      [userId],
    );
    return rows.map(toRow);
  }

  async findByClientId(userId: string, clientId: string): Promise<ConsentRow | null> {
    const rows: Record<string, unknown>[] = await this.consents.query(
      `SELECT c.user_id, c.client_pk, c.scopes, c.granted_at, c.last_used_at, c.limit_total_micros, c.limit_daily_micros,
              c.limit_weekly_micros, c.limit_monthly_micros, c.limit_per_request_micros, c.markup_percent,
              o.client_id, o.client_name, o.redirect_uris, o.markup_percent AS app_markup_percent
         FROM oauth_consents c JOIN oauth_clients o ON o.id = c.client_pk
        WHERE c.user_id = $1 AND o.client_id = $2`,
      [userId, clientId],
    );
    return rows[0] ? toRow(rows[0]) : null;
  }

  /**
   * What the app's calls for this user spent in each cap window (micro-units), through sy_spend: the very sums
   * sy_reserve checks the caps against (docs/budgets.md#caps-on-what-an-app-may-spend).
   */
  async spend(
    userId: string,
    clientId: string,
  ): Promise<{ total: number; daily: number; weekly: number; monthly: number }> {
    const rows: Record<string, string>[] = await this.consents.query(
      'SELECT total, daily, weekly, monthly FROM sy_spend(NULL, $1, $2)',
      [userId, clientId],
    );
    const row = rows[0] ?? {};
    return {
      total: Number(row.total ?? 0),
      daily: Number(row.daily ?? 0),
      weekly: Number(row.weekly ?? 0),
      monthly: Number(row.monthly ?? 0),
    };
  }

  async delete(userId: string, clientPk: number): Promise<boolean> {
    const result = await this.consents.delete({ userId, clientPk });
    return (result.affected ?? 0) > 0;
  }

  countByUser(userId: string): Promise<number> {
    return this.consents.countBy({ userId });
  }

  async countUsersByClient(clientPks: number[]): Promise<Map<number, number>> {
    if (!clientPks.length) return new Map();
    const rows: { client_pk: number; users: string }[] = await this.consents.query(
      'SELECT client_pk, count(*) AS users FROM oauth_consents WHERE client_pk = ANY($1::int[]) GROUP BY client_pk',
      [clientPks],
    );
    return new Map(rows.map((row) => [Number(row.client_pk), Number(row.users)]));
  }

  async setLimits(userId: string, clientPk: number, changes: Partial<LimitColumns>): Promise<void> {
    if (Object.keys(changes).length) await this.consents.update({ userId, clientPk }, changes);
  }

  /** last_used_at of many (user, client) pairs at once. */
  async touch(pairs: { userId: string; clientPk: number }[]): Promise<void> {
    if (!pairs.length) return;
    await this.consents.query(
      `UPDATE oauth_consents c SET last_used_at = now()
         FROM unnest($1::uuid[], $2::int[]) AS t(user_id, client_pk)
        WHERE c.user_id = t.user_id AND c.client_pk = t.client_pk`,
      [pairs.map((pair) => pair.userId), pairs.map((pair) => pair.clientPk)],
    );
  }
}

function toRow(row: Record<string, unknown>): ConsentRow {
  return {
    userId: String(row.user_id),
    clientPk: Number(row.client_pk),
    scopes: row.scopes as OAuthScope[],
    grantedAt: row.granted_at as Date,
    lastUsedAt: (row.last_used_at as Date | null) ?? null,
    limitTotalMicros: (row.limit_total_micros as string | null) ?? null,
    limitDailyMicros: (row.limit_daily_micros as string | null) ?? null,
    limitWeeklyMicros: (row.limit_weekly_micros as string | null) ?? null,
    limitMonthlyMicros: (row.limit_monthly_micros as string | null) ?? null,
    limitPerRequestMicros: (row.limit_per_request_micros as string | null) ?? null,
    clientId: String(row.client_id),
    clientName: String(row.client_name),
    redirectUris: parseTextArray(row.redirect_uris),
    markupPercent: Number(row.markup_percent ?? 0),
    appMarkupPercent: Number(row.app_markup_percent ?? 0),
  };
}

function parseTextArray(value: unknown): string[] {
  if (Array.isArray(value)) return value as string[];
  return String(value ?? '')
    .replace(/^\{|\}$/g, '')
    .split(',')
    .filter(Boolean)
    .map((item) => item.replace(/^"|"$/g, ''));
}
