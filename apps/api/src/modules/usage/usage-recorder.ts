import { MetricsService } from '../../common/metrics/metrics';
import { OneAtATime } from '../../common/one-at-a-time';
import { BeforeApplicationShutdown, Injectable, Logger, OnModuleInit } from '@nestjs/common';
import type { UsageStatus } from './entities/usage-record.entity';
import { UsageRepository } from './usage.repository';

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
  /** The deployment's model id at the provider (docs/routing.md); null or absent when none. */
  upstreamModel?: string | null;
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
    private readonly repository: UsageRepository,
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
        await this.repository.insertRecords(batch);
        this.queue.splice(0, batch.length);
        left -= batch.length;
      } catch (error) {
        // Kept for the next interval; the unique (call_id, started_at) makes the retry safe.
        this.logger.error(`writing ${batch.length} usage records failed: ${(error as Error).message}`);
        return;
      }
    }
  }
}
