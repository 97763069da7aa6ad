import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { ActivityStatusFilter, AnalyticsGroupBy } from '@switchyard/shared-dto';
import { batchQuery, pgArray } from '../../database/hot-path';
import type { UsageRecordInput } from './usage-recorder';
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

/** The columns written, each with its PostgreSQL type (the batch goes as one array per column). */
const COLUMNS: [name: string, type: string, value: (r: UsageRecordInput) => string | number | boolean | null][] = [
  ['call_id', 'uuid', (r) => r.callId],
  ['request_id', 'text', (r) => r.requestId],
  ['user_id', 'uuid', (r) => r.userId],
  ['api_key_id', 'uuid', (r) => r.apiKeyId],
  ['oauth_client_id', 'text', (r) => r.oauthClientId],
  ['credential_name', 'text', (r) => r.credentialName],
  ['method', 'text', (r) => r.method],
  ['model', 'text', (r) => r.model],
  ['provider', 'text', (r) => r.provider],
  ['upstream_model', 'text', (r) => r.upstreamModel ?? null],
  ['stream', 'boolean', (r) => r.stream],
  ['status', 'text', (r) => r.status],
  ['http_status', 'integer', (r) => r.httpStatus],
  ['error_code', 'text', (r) => r.errorCode],
  ['refused_limit', 'text', (r) => r.refusedLimit ?? null],
  ['prompt_tokens', 'integer', (r) => r.promptTokens],
  ['completion_tokens', 'integer', (r) => r.completionTokens],
  ['total_tokens', 'integer', (r) => r.promptTokens + r.completionTokens],
  ['cache_read_tokens', 'integer', (r) => r.cacheReadTokens ?? 0],
  ['cache_write_tokens', 'integer', (r) => r.cacheWriteTokens ?? 0],
  ['cache_write_1h_tokens', 'integer', (r) => r.cacheWrite1hTokens ?? 0],
  ['reasoning_tokens', 'integer', (r) => r.reasoningTokens ?? 0],
  ['cost_micros', 'bigint', (r) => r.costMicros],
  ['latency_ms', 'integer', (r) => Math.max(0, r.endedAt.getTime() - r.startedAt.getTime())],
  ['first_byte_ms', 'integer', (r) => (r.firstByteAt ? Math.max(0, r.firstByteAt - r.startedAt.getTime()) : null)],
  ['started_at', 'timestamptz', (r) => r.startedAt.toISOString()],
  ['ended_at', 'timestamptz', (r) => r.endedAt.toISOString()],
];
const SUMS = `count(*), count(*) FILTER (WHERE status <> 'success'), sum(prompt_tokens), sum(completion_tokens),
  sum(total_tokens), sum(cost_micros)`;
const ADD_SUMS = (table: string) =>
  ['requests', 'errors', 'prompt_tokens', 'completion_tokens', 'total_tokens', 'cost_micros']
    .map((c) => `${c} = ${table}.${c} + EXCLUDED.${c}`)
    .join(', ');

// The daily rollups count only the rows this statement actually inserted (RETURNING yields nothing for a
// conflict), so a retried batch adds to none of them twice. Rows are grouped, and upserted in key order, so that
// two instances updating the same rollup rows take their row locks in the same order. usage_app_users is left
// alone when the batch adds no new day (the common case: a user calls the same app many times a day).
// The rows arrive as one array per column, so the statement's text never changes with the batch's size: it is
// prepared once per connection (a VALUES list of 200 rows × 19 parameters was parsed and planned every time,
// about half of PostgreSQL's work per record; docs/benchmarks.md).
const INSERT_WITH_ROLLUPS = `
  WITH inserted AS (
    INSERT INTO usage_records (${COLUMNS.map(([name]) => name).join(', ')})
    SELECT * FROM unnest(${COLUMNS.map(([, type], i) => `$${i + 1}::${type}[]`).join(', ')})
    ON CONFLICT (call_id, started_at) DO NOTHING
    RETURNING (started_at AT TIME ZONE 'UTC')::date AS day, user_id, api_key_id, oauth_client_id, credential_name, model,
              status, prompt_tokens, completion_tokens, total_tokens, cost_micros
  ),
  by_user AS (
    INSERT INTO usage_daily AS d (day, user_id, api_key_id, oauth_client_id, credential_name, model,
                                  requests, errors, prompt_tokens, completion_tokens, total_tokens, cost_micros)
    SELECT day, user_id, api_key_id, oauth_client_id, credential_name, model, ${SUMS}
      FROM inserted GROUP BY 1, 2, 3, 4, 5, 6 ORDER BY 2, 1, 3, 4, 5, 6
    ON CONFLICT (user_id, day, api_key_id, oauth_client_id, credential_name, model) DO UPDATE SET ${ADD_SUMS('d')}
  ),
  by_app AS (
    INSERT INTO usage_app_daily AS a (oauth_client_id, day, model,
                                      requests, errors, prompt_tokens, completion_tokens, total_tokens, cost_micros)
    SELECT oauth_client_id, day, model, ${SUMS}
      FROM inserted WHERE oauth_client_id IS NOT NULL GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
    ON CONFLICT (oauth_client_id, day, model) DO UPDATE SET ${ADD_SUMS('a')}
  )
  INSERT INTO usage_app_users AS u (oauth_client_id, month, user_id, days)
  SELECT oauth_client_id, day - (extract(day FROM day)::int - 1), user_id, bit_or(1 << (extract(day FROM day)::int - 1))
    FROM inserted WHERE oauth_client_id IS NOT NULL GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
  ON CONFLICT (oauth_client_id, month, user_id) DO UPDATE SET days = u.days | EXCLUDED.days
    WHERE u.days | EXCLUDED.days <> u.days`;
/**
 * The only code touching usage records and their rollups (usage_records, usage_daily, usage_app_daily,
 * usage_app_users): the recorder's batched insert, the monthly partitions, and the reads for the dashboard and app
 * owners. Rows come back as PostgreSQL returns them; UsageService shapes the answers.
 */
@Injectable()
export class UsageRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * Inserts a batch of usage records (UsageRecorder's) and adds the new ones to the daily rollups, in one
   * statement; a record already written (a retried batch) is skipped and counted nowhere twice.
   */
  async insertRecords(batch: UsageRecordInput[]): Promise<void> {
    await batchQuery(
      this.dataSource,
      'sy_usage_insert',
      INSERT_WITH_ROLLUPS,
      COLUMNS.map(([, , value]) => pgArray(batch.map(value))),
    );
  }

  /** Creates usage_records' partition for the month starting on `month` (YYYY-MM-01) unless it exists; true if created. */
  async ensurePartition(month: string): Promise<boolean> {
    const [row] = await this.dataSource.query<{ created: boolean }[]>(
      'SELECT usage_partition_ensure($1::date) AS created',
      [month],
    );
    return row.created;
  }

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
      `SELECT id, call_id, request_id, api_key_id, oauth_client_id, credential_name, method, model, provider, upstream_model,
              stream, status, http_status,
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
