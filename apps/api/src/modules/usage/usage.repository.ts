import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { ActivityStatusFilter, AnalyticsGroupBy } from '@switchyard/shared-dto';
import { splitWindow, usageSource } from './usage-window';

/** Each analytics grouping, over a usage_daily row and over a usage_records row. Days are UTC days. */
const GROUP_KEYS = {
  day: {
    daily: `to_char(day, 'YYYY-MM-DD')`,
    raw: `to_char(date_trunc('day', started_at AT TIME ZONE 'UTC'), 'YYYY-MM-DD')`,
  },
  model: { daily: 'model', raw: 'model' },
  key: { daily: `COALESCE(credential_name, 'Unknown')`, raw: `COALESCE(credential_name, 'Unknown')` },
  app: { daily: `COALESCE(oauth_client_id, 'none')`, raw: `COALESCE(oauth_client_id, 'none')` },
} as const satisfies Record<AnalyticsGroupBy, { daily: string; raw: string }>;

/** The activity's filters, checked already: `from` and `to` as timestamps bounding [from, to). */
export interface ActivityFilter {
  keyId?: string;
  appId?: string;
  model?: string;
  status?: ActivityStatusFilter;
  from?: Date;
  to?: Date;
}

/**
 * The reads of usage records and their rollups (usage_records, usage_daily, usage_app_daily, usage_app_users) for
 * the dashboard and app owners. Rows come back as PostgreSQL returns them; UsageService shapes the answers.
 */
@Injectable()
export class UsageRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * A user's records newest first, from just before `cursor` (started_at, id) when given, within the filters: at
   * most `limit` rows. Every filter is a condition besides user_id, so another user's key or app matches nothing.
   */
  activity(
    userId: string,
    limit: number,
    cursor: [string, string] | null,
    filter: ActivityFilter,
  ): Promise<Record<string, unknown>[]> {
    const params: unknown[] = [userId, limit];
    const where = ['user_id = $1'];
    const bind = (value: unknown) => `$${params.push(value)}`;
    // Plain bounds on started_at let PostgreSQL skip the months outside the window and after the cursor
    // (partition pruning); the row comparison alone would not.
    if (filter.from) where.push(`started_at >= ${bind(filter.from)}::timestamptz`);
    if (filter.to) where.push(`started_at < ${bind(filter.to)}::timestamptz`);
    if (cursor) {
      const [time, id] = [bind(cursor[0]), bind(cursor[1])];
      where.push(`started_at <= ${time}::timestamptz AND (started_at, id) < (${time}::timestamptz, ${id}::uuid)`);
    }
    if (filter.keyId) where.push(`api_key_id = ${bind(filter.keyId)}::uuid`);
    if (filter.appId) where.push(`oauth_client_id = ${bind(filter.appId)}`);
    if (filter.model) where.push(`model = ${bind(filter.model)}`);
    if (filter.status === 'error') where.push(`status <> 'success'`);
    else if (filter.status) where.push(`status = ${bind(filter.status)}`);
    return this.dataSource.query<Record<string, unknown>[]>(
      `SELECT id, call_id, request_id, api_key_id, oauth_client_id, credential_name, method, model, stream, status, http_status,
              error_code, refused_limit, prompt_tokens, completion_tokens, total_tokens, cache_read_tokens, cache_write_tokens, cache_write_1h_tokens,
              reasoning_tokens, cost_micros, latency_ms, first_byte_ms, started_at, ended_at
         FROM usage_records WHERE ${where.join(' AND ')} ORDER BY started_at DESC, id DESC LIMIT $2`,
      params,
    );
  }

  /** A user's sums over [from, end) per group: key, requests, prompt, completion, total, cost. */
  async analytics(
    userId: string,
    groupBy: AnalyticsGroupBy,
    from: Date,
    end: Date,
  ): Promise<Record<string, unknown>[]> {
    const filter =
      groupBy === 'key' ? ' AND api_key_id IS NOT NULL' : groupBy === 'app' ? ' AND oauth_client_id IS NOT NULL' : '';
    const params: unknown[] = [userId];
    const sums = 'prompt_tokens, completion_tokens, total_tokens, cost_micros';
    const where = `user_id = $1${filter}`;
    const source = usageSource(
      splitWindow(from, end),
      {
        days: (a, b) =>
          `SELECT ${GROUP_KEYS[groupBy].daily} AS key, requests, ${sums} FROM usage_daily WHERE ${where} AND day >= ${a} AND day < ${b}`,
        raw: (a, b) =>
          `SELECT ${GROUP_KEYS[groupBy].raw} AS key, 1 AS requests, ${sums} FROM usage_records WHERE ${where} AND started_at >= ${a} AND started_at < ${b}`,
      },
      params,
    );
    return source
      ? await this.dataSource.query<Record<string, unknown>[]>(
          `SELECT key, sum(requests) AS requests, sum(prompt_tokens) AS prompt, sum(completion_tokens) AS completion,
                  sum(total_tokens) AS total, sum(cost_micros) AS cost
             FROM (${source}) AS window_rows GROUP BY key ORDER BY key`,
          params,
        )
      : [];
  }

  /**
   * One app's calls over [from, to) across every user who authorized it, in one pass: the totals (grouping_set 3),
   * per model (1) and per day (2), each row with the count of distinct users in the window.
   */
  async clientUsage(clientId: string, from: Date, to: Date): Promise<Record<string, unknown>[]> {
    const params: unknown[] = [clientId];
    const window = splitWindow(from, to);
    const calls = usageSource(
      window,
      {
        days: (a, b) => `SELECT model, ${GROUP_KEYS.day.daily} AS day, requests, total_tokens, cost_micros
                           FROM usage_app_daily WHERE oauth_client_id = $1 AND day >= ${a} AND day < ${b}`,
        raw: (a, b) => `SELECT model, ${GROUP_KEYS.day.raw} AS day, 1 AS requests, total_tokens, cost_micros
                          FROM usage_records WHERE oauth_client_id = $1 AND started_at >= ${a} AND started_at < ${b}`,
      },
      params,
    );
    // Whole days: the months that overlap them, and of each month's row only a user whose day bits meet them.
    const users = usageSource(
      window,
      {
        days: (a, b) => `SELECT user_id FROM usage_app_users
                          WHERE oauth_client_id = $1 AND month >= ${a} - (extract(day FROM ${a})::int - 1) AND month < ${b}
                            AND days::bigint & ((1::bigint << (LEAST(${b}, (month + interval '1 month')::date) - month))
                                                - (1::bigint << GREATEST(${a} - month, 0))) <> 0`,
        raw: (a, b) =>
          `SELECT user_id FROM usage_records WHERE oauth_client_id = $1 AND started_at >= ${a} AND started_at < ${b}`,
      },
      params,
    );
    // GROUPING(model, day) tells the sets apart: 3 for the totals, 1 per model, 2 per day.
    return calls
      ? await this.dataSource.query<Record<string, unknown>[]>(
          `SELECT GROUPING(model, day) AS grouping_set, model, day, sum(requests) AS requests, sum(total_tokens) AS tokens,
                  sum(cost_micros) AS cost, (SELECT count(DISTINCT user_id) FROM (${users}) AS window_users) AS users
             FROM (${calls}) AS window_rows GROUP BY GROUPING SETS ((), (model), (day)) ORDER BY grouping_set, model, day`,
          params,
        )
      : [];
  }
}
