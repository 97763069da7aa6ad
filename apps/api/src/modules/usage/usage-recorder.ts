import { MetricsService } from '../../common/metrics/metrics';
import { OneAtATime } from '../../common/one-at-a-time';
import { hotQuery, pgArray } from '../../database/hot-path';
import { BeforeApplicationShutdown, Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { UsageStatus } from './entities/usage-record.entity';

export interface UsageRecordInput {
  /** The call's own id (the server's, random): the record's key. */
  callId: string;
  /** The caller's X-Request-Id, for correlation. */
  requestId: string;
  userId: string;
  apiKeyId: string | null;
  oauthClientId: string | null;
  credentialName: string | null;
  method: string;
  model: string;
  provider: string | null;
  stream: boolean;
  status: UsageStatus;
  httpStatus: number;
  errorCode: string | null;
  /** Which limit refused the call: 'account', or 'key:daily', 'app:per_request', … (absent for other endings). */
  refusedLimit?: string | null;
  /** Every input token, cached or not. */
  promptTokens: number;
  /** Every output token, reasoning included. */
  completionTokens: number;
  /** Of promptTokens: read from the prompt cache, written to it for five minutes, for one hour (0 when absent). */
  cacheReadTokens?: number;
  cacheWriteTokens?: number;
  cacheWrite1hTokens?: number;
  /** Of completionTokens: reasoning. */
  reasoningTokens?: number;
  costMicros: number;
  startedAt: Date;
  endedAt: Date;
  /** When the answer's first byte went out (epoch ms); absent when no answer began. */
  firstByteAt?: number | null;
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
const BATCH_SIZE = 200;
const FLUSH_INTERVAL_MS = 500;
const MAX_QUEUED = 100_000;

/**
 * Writes usage records in batches, off the request's hot path: a call adds to a queue, and one statement per
 * interval (or per 200 records) inserts them and adds them to the daily rollups (usage_daily, usage_app_daily,
 * usage_app_users). A record is unique by (call_id, started_at) (the table is partitioned by started_at, and
 * a retried batch carries the same started_at) and the insert skips conflicts, so a retried batch never counts a
 * call twice. A graceful shutdown flushes the queue; a crash can lose at most the last interval's records (the
 * budget ledger does not depend on them: reservations are written first).
 */
@Injectable()
export class UsageRecorder implements OnModuleInit, BeforeApplicationShutdown {
  private queue: UsageRecordInput[] = [];
  private timer: NodeJS.Timeout | undefined;
  private readonly flushing = new OneAtATime();
  private readonly logger = new Logger('UsageRecorder');

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly metrics: MetricsService,
  ) {}

  onModuleInit(): void {
    this.timer = setInterval(() => void this.flush(), FLUSH_INTERVAL_MS);
    this.timer.unref();
  }

  // Before any module's shutdown hook: TypeORM closes its connections in onApplicationShutdown.
  async beforeApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }

  record(record: UsageRecordInput): void {
    this.metrics.observeCall(record);
    if (this.queue.length >= MAX_QUEUED) {
      this.logger.error(`usage queue full (${MAX_QUEUED}); dropping record ${record.requestId}`);
      return;
    }
    this.queue.push(record);
    if (this.queue.length >= BATCH_SIZE) void this.flush();
  }

  get pending(): number {
    return this.queue.length;
  }

  /** Writes everything queued so far; concurrent calls share one flush, then run again for what arrived meanwhile. */
  async flush(): Promise<void> {
    await this.flushing.run(() => this.writeAll());
  }

  /**
   * Writes the records queued when it starts; those that arrive meanwhile wait for the next interval or a full
   * batch. (Looping until the queue was empty wrote a small batch per database round trip under load.)
   */
  private async writeAll(): Promise<void> {
    let left = this.queue.length;
    while (left > 0) {
      const batch = this.queue.slice(0, Math.min(left, BATCH_SIZE));
      try {
        await this.insert(batch);
        this.queue.splice(0, batch.length);
        left -= batch.length;
      } catch (error) {
        // Kept for the next interval; the unique (call_id, started_at) makes the retry safe.
        this.logger.error(`writing ${batch.length} usage records failed: ${(error as Error).message}`);
        return;
      }
    }
  }

  private async insert(batch: UsageRecordInput[]): Promise<void> {
    await hotQuery(
      this.dataSource,
      'sy_usage_insert',
      INSERT_WITH_ROLLUPS,
      COLUMNS.map(([, , value]) => pgArray(batch.map(value))),
    );
  }
}
