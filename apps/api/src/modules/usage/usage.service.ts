import { Injectable } from '@nestjs/common';
import type {
  ActivityPage,
  ActivityRecord,
  AnalyticsGroup,
  AnalyticsResponse,
  ClientUsageResponse,
} from '@switchyard/shared-dto';
import type { UsageActivityQueryDto, UsageAnalyticsQueryDto } from '@switchyard/shared-dto/validation';
import { ReservationsRepository } from './ledger/reservations.repository';
import { toUnits } from './ledger/ledger.service';
import { markupSplit } from './ledger/markup';
import { refusedLimitOf } from './ledger/spend-limit-refusal';
import { UsageErrorCode, UsageException } from './usage.exception';
import { UsageRepository } from './usage.repository';
import { DAY_MS } from './usage-window';

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

/** [from, to) of ISO 8601 bounds already validated: a bare date as `to` means the whole of that day. */
function windowOf(from: string | undefined, to: string | undefined): { from?: Date; to?: Date } {
  const end = to ? new Date(to) : undefined;
  return {
    from: from ? new Date(from) : undefined,
    to: end && /^\d{4}-\d{2}-\d{2}$/.test(to!) ? new Date(end.getTime() + DAY_MS) : end,
  };
}

/** The dashboard's reads of usage: activity (newest first, cursor-paginated) and analytics by group. */
@Injectable()
export class UsageService {
  constructor(
    private readonly repository: UsageRepository,
    private readonly reservations: ReservationsRepository,
  ) {}

  async activity(userId: string, query: UsageActivityQueryDto): Promise<ActivityPage> {
    const limit = query.limit ?? 50;
    // One row more than the page tells whether there is a next one.
    const { keyId, appId, model, status } = query;
    const rows = await this.repository.activity(userId, limit + 1, query.cursor ? decodeCursor(query.cursor) : null, {
      keyId,
      appId,
      model,
      status,
      ...windowOf(query.from, query.to),
    });
    const page = rows.slice(0, limit);
    // The money trace reads only this user's own reservations, by the calls' own ids.
    const trace = await this.reservations.trace(
      userId,
      page.map((row) => String(row.call_id)),
    );
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
        apiKeyId: (row.api_key_id as string) ?? null,
        appId: (row.oauth_client_id as string) ?? null,
        model: String(row.model),
        provider: (row.provider as string) ?? null,
        upstreamModel: (row.upstream_model as string) ?? null,
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
        refusedLimit: refusedLimitOf(row.refused_limit),
        latencyMs: num(row.latency_ms),
        firstByteMs: row.first_byte_ms === null || row.first_byte_ms === undefined ? null : num(row.first_byte_ms),
        money: money
          ? {
              reserved: toUnits(money.reserved),
              charged: toUnits(charged),
              released: toUnits(money.reserved - charged),
              outcome: money.status === 'open' ? 'open' : (money.status as 'settled' | 'released'),
              reason: money.reason,
              markup: money.markupPercent > 0 ? markupLine(charged, money.markupPercent) : null,
              // The sponsor pays min(charge, its hold) (sy_sponsor_settle); an open call shows what it holds.
              sponsored: toUnits(
                money.status === 'open' ? money.sponsorMicros : Math.min(charged, money.sponsorMicros),
              ),
            }
          : { reserved: 0, charged: 0, released: 0, outcome: 'none', reason: null, markup: null, sponsored: 0 },
      };
    });
    const last = page.at(-1);
    return {
      items,
      nextCursor: rows.length > limit && last ? encodeCursor(last.started_at as Date, String(last.id)) : null,
    };
  }

  async analytics(userId: string, query: UsageAnalyticsQueryDto): Promise<AnalyticsResponse> {
    const to = query.to ? new Date(query.to) : new Date();
    const from = query.from ? new Date(query.from) : new Date(to.getTime() - 30 * DAY_MS);
    const end = query.to ? windowOf(undefined, query.to).to! : to;
    const groupBy = query.groupBy ?? 'day';
    const rows = await this.repository.analytics(userId, groupBy, from, end);
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
      totals: {
        requests: sum('requests'),
        promptTokens: sum('promptTokens'),
        completionTokens: sum('completionTokens'),
        totalTokens: sum('totalTokens'),
        cost: toUnits(costMicros),
      },
      groups,
    };
  }

  /**
   * One app's usage across every user who authorized it, for its owner (docs/decisions.md#resource-shapes). `from` and
   * `to` are UTC dates; the window includes both days.
   */
  async clientUsage(
    clientId: string,
    from: Date,
    to: Date,
  ): Promise<Omit<ClientUsageResponse, 'clientId' | 'startDate' | 'endDate'>> {
    // One pass for the totals (grouping set 3), per model (1) and per day (2).
    const rows = await this.repository.clientUsage(clientId, from, new Date(to.getTime() + DAY_MS));
    const set = (which: number) => rows.filter((r) => num(r.grouping_set) === which);
    const [totals = {}] = set(3);
    const row = (r: Record<string, unknown>) => ({
      requests: num(r.requests),
      totalTokens: num(r.tokens),
      cost: toUnits(num(r.cost)),
    });
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

/** A marked-up call's line on the Requests page: its rate and the split of its charge (markupSplit). */
function markupLine(chargedMicros: number, percent: number): { percent: number; providerCost: number; markup: number } {
  const split = markupSplit(chargedMicros, percent);
  return { percent, providerCost: toUnits(split.providerMicros), markup: toUnits(split.markupMicros) };
}
