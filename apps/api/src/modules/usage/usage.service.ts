import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { ActivityPage, ActivityRecord, AnalyticsGroup, AnalyticsResponse, ClientUsageResponse } from '@switchyard/shared-dto';
import type { UsageActivityQueryDto, UsageAnalyticsQueryDto } from '@switchyard/shared-dto/validation';
import { ReservationsRepository } from './ledger/reservations.repository';
import { toUnits } from './ledger/ledger.service';
import { UsageErrorCode, UsageException } from './usage.exception';
import { DAY_MS, splitWindow, usageSource } from './usage-window';

/** Each analytics grouping, over a usage_daily row and over a usage_records row. Days are UTC days. */
const GROUP_KEYS = {
  day: { daily: `to_char(day, 'YYYY-MM-DD')`, raw: `to_char(date_trunc('day', started_at AT TIME ZONE 'UTC'), 'YYYY-MM-DD')` },
  model: { daily: 'model', raw: 'model' },
  key: { daily: `COALESCE(credential_name, 'Unknown')`, raw: `COALESCE(credential_name, 'Unknown')` },
  app: { daily: `COALESCE(oauth_client_id, 'none')`, raw: `COALESCE(oauth_client_id, 'none')` },
} as const;
const num = (value: unknown) => Number(value ?? 0);

function encodeCursor(startedAt: Date, id: string): string {
  return Buffer.from(`${startedAt.toISOString()}|${id}`).toString('base64url');
}

function decodeCursor(cursor: string): [string, string] {
  const [time, id] = Buffer.from(cursor, 'base64url').toString().split('|');
  if (!time || !id || Number.isNaN(Date.parse(time)) || !/^[0-9a-f-]{36}$/.test(id))
    throw new UsageException(UsageErrorCode.INVALID_CURSOR, 'The cursor is not one this endpoint returned');
  return [time, id];
}

/** The dashboard's reads of usage: activity (newest first, cursor-paginated) and analytics by group. */
@Injectable()
export class UsageService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly reservations: ReservationsRepository,
  ) {}

  async activity(userId: string, query: UsageActivityQueryDto): Promise<ActivityPage> {
    const limit = query.limit ?? 50;
    const params: unknown[] = [userId, limit + 1];
    let where = 'user_id = $1';
    if (query.cursor) {
      const [time, id] = decodeCursor(query.cursor);
      params.push(time, id);
      // The plain bound on started_at lets PostgreSQL skip the months after the cursor (partition pruning);
      // the row comparison alone would not.
      where += ' AND started_at <= $3::timestamptz AND (started_at, id) < ($3::timestamptz, $4::uuid)';
    }
    const rows: Record<string, unknown>[] = await this.dataSource.query(
      `SELECT id, call_id, request_id, api_key_id, oauth_client_id, credential_name, method, model, stream, status, http_status,
              error_code, prompt_tokens, completion_tokens, total_tokens, cache_read_tokens, cache_write_tokens, cache_write_1h_tokens,
              reasoning_tokens, cost_micros, latency_ms, started_at, ended_at
         FROM usage_records WHERE ${where} ORDER BY started_at DESC, id DESC LIMIT $2`,
      params,
    );
    const page = rows.slice(0, limit);
    // The money trace reads only this user's own reservations, by the calls' own ids.
    const trace = await this.reservations.trace(userId, page.map((row) => String(row.call_id)));
    const items: ActivityRecord[] = page.map((row) => {
      const money = trace.get(String(row.call_id));
      const charged = money?.settled ?? 0;
      return {
        id: String(row.call_id),
        requestId: String(row.request_id),
        startTime: (row.started_at as Date).toISOString(),
        endTime: (row.ended_at as Date).toISOString(),
        name: (row.credential_name as string) || 'Unknown',
        credentialType: row.api_key_id ? 'api_key' : row.oauth_client_id ? 'oauth' : 'unknown',
        model: String(row.model),
        method: String(row.method),
        stream: Boolean(row.stream),
        promptTokens: num(row.prompt_tokens),
        completionTokens: num(row.completion_tokens),
        totalTokens: num(row.total_tokens),
        cacheReadTokens: num(row.cache_read_tokens),
        cacheWriteTokens: num(row.cache_write_tokens),
        cacheWrite1hTokens: num(row.cache_write_1h_tokens),
        reasoningTokens: num(row.reasoning_tokens),
        cost: toUnits(num(row.cost_micros)),
        status: String(row.status),
        httpStatus: num(row.http_status),
        errorCode: (row.error_code as string) ?? null,
        latencyMs: num(row.latency_ms),
        money: money
          ? { reserved: toUnits(money.reserved), charged: toUnits(charged), released: toUnits(money.reserved - charged), outcome: money.status === 'open' ? 'open' : money.status as 'settled' | 'released', reason: money.reason }
          : { reserved: 0, charged: 0, released: 0, outcome: 'none', reason: null },
      };
    });
    const last = page.at(-1);
    return { items, nextCursor: rows.length > limit && last ? encodeCursor(last.started_at as Date, String(last.id)) : null };
  }

  async analytics(userId: string, query: UsageAnalyticsQueryDto): Promise<AnalyticsResponse> {
    const to = query.to ? new Date(query.to) : new Date();
    const from = query.from ? new Date(query.from) : new Date(to.getTime() - 30 * DAY_MS);
    // A bare date as `to` means the whole of that day.
    const end = query.to && /^\d{4}-\d{2}-\d{2}$/.test(query.to) ? new Date(to.getTime() + DAY_MS) : to;
    const groupBy = query.groupBy ?? 'day';
    const filter = groupBy === 'key' ? ' AND api_key_id IS NOT NULL' : groupBy === 'app' ? ' AND oauth_client_id IS NOT NULL' : '';
    const params: unknown[] = [userId];
    const sums = 'prompt_tokens, completion_tokens, total_tokens, cost_micros';
    const where = `user_id = $1${filter}`;
    const source = usageSource(
      splitWindow(from, end),
      {
        days: (a, b) => `SELECT ${GROUP_KEYS[groupBy].daily} AS key, requests, ${sums} FROM usage_daily WHERE ${where} AND day >= ${a} AND day < ${b}`,
        raw: (a, b) => `SELECT ${GROUP_KEYS[groupBy].raw} AS key, 1 AS requests, ${sums} FROM usage_records WHERE ${where} AND started_at >= ${a} AND started_at < ${b}`,
      },
      params,
    );
    const rows: Record<string, unknown>[] = source
      ? await this.dataSource.query(
          `SELECT key, sum(requests) AS requests, sum(prompt_tokens) AS prompt, sum(completion_tokens) AS completion,
                  sum(total_tokens) AS total, sum(cost_micros) AS cost
             FROM (${source}) AS window_rows GROUP BY key ORDER BY key`,
          params,
        )
      : [];
    const groups: AnalyticsGroup[] = rows.map((row) => ({
      key: String(row.key),
      requests: num(row.requests),
      promptTokens: num(row.prompt),
      completionTokens: num(row.completion),
      totalTokens: num(row.total),
      cost: toUnits(num(row.cost)),
    }));
    const sum = (field: keyof Omit<AnalyticsGroup, 'key'>) => groups.reduce((total, group) => total + group[field], 0);
    const costMicros = rows.reduce((total, row) => total + num(row.cost), 0);
    return {
      from: from.toISOString(),
      to: end.toISOString(),
      groupBy,
      totals: { requests: sum('requests'), promptTokens: sum('promptTokens'), completionTokens: sum('completionTokens'), totalTokens: sum('totalTokens'), cost: toUnits(costMicros) },
      groups,
    };
  }

  /**
   * One app's usage across every user who authorized it, for its owner (docs/decisions.md#resource-shapes). `from` and
   * `to` are UTC dates; the window includes both days.
   */
  async clientUsage(clientId: string, from: Date, to: Date): Promise<Omit<ClientUsageResponse, 'clientId' | 'startDate' | 'endDate'>> {
    const params: unknown[] = [clientId];
    const window = splitWindow(from, new Date(to.getTime() + DAY_MS));
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
        raw: (a, b) => `SELECT user_id FROM usage_records WHERE oauth_client_id = $1 AND started_at >= ${a} AND started_at < ${b}`,
      },
      params,
    );
    // One pass for the totals, per model and per day. GROUPING(model, day) tells the sets apart: 3 for the
    // totals, 1 per model, 2 per day.
    const rows: Record<string, unknown>[] = calls
      ? await this.dataSource.query(
          `SELECT GROUPING(model, day) AS grouping_set, model, day, sum(requests) AS requests, sum(total_tokens) AS tokens,
                  sum(cost_micros) AS cost, (SELECT count(DISTINCT user_id) FROM (${users}) AS window_users) AS users
             FROM (${calls}) AS window_rows GROUP BY GROUPING SETS ((), (model), (day)) ORDER BY grouping_set, model, day`,
          params,
        )
      : [];
    const set = (which: number) => rows.filter((r) => num(r.grouping_set) === which);
    const [totals = {}] = set(3);
    const row = (r: Record<string, unknown>) => ({ requests: num(r.requests), totalTokens: num(r.tokens), cost: toUnits(num(r.cost)) });
    return {
      totalCost: toUnits(num(totals.cost)),
      totalTokens: num(totals.tokens),
      requests: num(totals.requests),
      users: num(totals.users),
      byModel: set(1).map((r) => ({ model: String(r.model), ...row(r) })),
      byDay: set(2).map((r) => ({ date: String(r.day), ...row(r) })),
    };
  }
}
