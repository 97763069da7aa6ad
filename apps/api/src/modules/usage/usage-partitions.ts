import { Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { UsageRepository } from './usage.repository';

/** Months kept ready beyond the current one: a month's partition exists about two months before its first row. */
export const MONTHS_AHEAD = 2;
const CHECK_INTERVAL_MS = 86_400_000;

/** The first day (UTC) of `date`'s month and of each of the `ahead` months after it, as YYYY-MM-DD. */
export function monthsFrom(date: Date, ahead: number): string[] {
  return Array.from({ length: ahead + 1 }, (_, i) =>
    new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + i, 1)).toISOString().slice(0, 10),
  );
}

/**
 * Keeps usage_records' monthly partitions ahead of time: at start and then daily, the current month and the
 * next two. usage_partition_ensure (migration 1763800008000) is idempotent and safe when several instances run
 * it at once; a row that arrives for a month without a partition lands in the DEFAULT partition, and the
 * function moves such rows when it creates that month. docs/operations.md, "Usage data".
 */
@Injectable()
export class UsagePartitions implements OnModuleInit, OnModuleDestroy {
  private timer: NodeJS.Timeout | undefined;
  private readonly logger = new Logger('UsagePartitions');

  constructor(private readonly repository: UsageRepository) {}

  async onModuleInit(): Promise<void> {
    await this.ensure();
    this.timer = setInterval(() => void this.ensure(), CHECK_INTERVAL_MS);
    this.timer.unref();
  }

  onModuleDestroy(): void {
    clearInterval(this.timer);
  }

  /** Creates the partitions missing from `now`'s month through MONTHS_AHEAD later; returns the months it created. */
  async ensure(now = new Date(), ahead = MONTHS_AHEAD): Promise<string[]> {
    const created: string[] = [];
    try {
      for (const month of monthsFrom(now, ahead)) {
        if (await this.repository.ensurePartition(month)) created.push(month);
      }
      if (created.length) this.logger.log(`created usage partitions for ${created.join(', ')}`);
    } catch (error) {
      // Not fatal: rows still land (in the DEFAULT partition) and the next daily run retries.
      this.logger.error(`creating usage partitions failed: ${(error as Error).message}`);
    }
    return created;
  }
}
