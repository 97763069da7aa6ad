import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { BeforeApplicationShutdown, Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { Database } from '../../database/database';
import { SpacePageWriter } from './space-page.writer';
import { ClaimedJob, SpacesRepository } from './spaces.repository';

/** A claim is good this long unless renewed; an instance that dies loses its jobs to another after it. */
export const SPACE_JOB_LEASE_SECONDS = 60;
const RENEW_MS = 15_000;
/**
 * How often an instance looks for jobs nobody runs (an expired lease, or one another instance queued while it was
 * busy). A job queued here is started at once without waiting for it. The embedded database has one process and
 * every statement goes through one session (its socket server interleaves concurrent statements: docs/database.md),
 * so there the look is only a rare safety net.
 */
const POLL_MS = { postgres: 3_000, embedded: 15_000 } as const;
/** How often an instance looks for jobs that died with their instance too often (and fails them). */
const RECOVER_MS = 10_000;
/** A job interrupted this many times (its instance died or shut down while it ran) fails instead of running again. */
export const SPACE_JOB_MAX_ATTEMPTS = 3;
const CONCURRENCY = 4;
const INTERRUPTED = `The job was interrupted ${SPACE_JOB_MAX_ATTEMPTS} times (the server restarted while it ran); try again`;

/**
 * Runs generation and edit jobs in this process, with the job's row as its state (docs/spaces.md):
 * - A job is claimed with one conditional UPDATE (SKIP LOCKED), so with several instances exactly one runs it.
 * - While it runs its lease is renewed; if the instance dies the lease runs out and another instance (or this
 *   one, restarted) claims it again. On the embedded database, which only one process opens, every job still
 *   `running` at start belonged to a dead process and is re-queued at once.
 * - A job interrupted SPACE_JOB_MAX_ATTEMPTS times fails with a reason: nothing is ever left `generating`.
 * - At shutdown no new job is claimed; jobs in flight end with the gateway's drain (their page is kept when the
 *   call finished in the grace period, else the job is handed back to the queue).
 */
@Injectable()
export class SpaceJobsRunner implements OnApplicationBootstrap, OnModuleDestroy, BeforeApplicationShutdown {
  readonly instance = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  private readonly running = new Map<string, Promise<void>>();
  private readonly logger = new Logger('SpaceJobs');
  private timer: NodeJS.Timeout | undefined;
  private stopping = false;
  private pumping: Promise<void> | null = null;
  private pumpAgain = false;
  private recoveredAt = 0;

  constructor(
    private readonly repository: SpacesRepository,
    private readonly writer: SpacePageWriter,
    private readonly database: Database,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.repository.recover(this.database.kind === 'embedded', SPACE_JOB_MAX_ATTEMPTS, INTERRUPTED);
    this.timer = setInterval(() => this.kick(), POLL_MS[this.database.kind]);
    this.timer.unref();
    this.kick();
  }

  onModuleDestroy(): void {
    this.stopping = true;
    clearInterval(this.timer);
  }

  /** Waits for the jobs in flight (the gateway's drain ends their calls) before the database closes. */
  async beforeApplicationShutdown(): Promise<void> {
    await this.pumping;
    await Promise.allSettled([...this.running.values()]);
  }

  /** Looks for work now (after a job was queued, or one ended; `recover` also fails jobs that died too often). */
  kick(options: { recover?: boolean } = {}): void {
    if (options.recover) this.recoveredAt = 0;
    if (this.stopping) return;
    if (this.pumping) {
      this.pumpAgain = true;
      return;
    }
    this.pumping = this.pump()
      .catch((error: Error) => this.logger.error(`claiming jobs failed: ${error.message}`))
      .finally(() => {
        this.pumping = null;
        if (this.pumpAgain) {
          this.pumpAgain = false;
          this.kick();
        }
      });
  }

  /** How many jobs this instance runs now. */
  get active(): number {
    return this.running.size;
  }

  private async pump(): Promise<void> {
    if (Date.now() - this.recoveredAt >= RECOVER_MS) {
      await this.repository.recover(false, SPACE_JOB_MAX_ATTEMPTS, INTERRUPTED);
      this.recoveredAt = Date.now();
    }
    for (let claims = 0; claims < CONCURRENCY && !this.stopping && this.running.size < CONCURRENCY; claims++) {
      const job = await this.repository.claim(this.instance, SPACE_JOB_LEASE_SECONDS, SPACE_JOB_MAX_ATTEMPTS);
      if (!job) return;
      const run = this.run(job).finally(() => {
        this.running.delete(job.id);
        this.kick();
      });
      this.running.set(job.id, run);
    }
  }

  private async run(job: ClaimedJob): Promise<void> {
    // Aborted when the lease cannot be renewed: the app was deleted, or another instance took the job over.
    const lost = new AbortController();
    const renew = setInterval(() => {
      void this.repository.renewLease(job, this.instance, SPACE_JOB_LEASE_SECONDS).then(
        (held) => held || lost.abort(new Error('lease lost')),
        () => undefined, // a failed renewal is retried at the next tick; the lease still has time
      );
    }, RENEW_MS);
    try {
      const outcome = await this.writer.write(job, lost.signal);
      if (lost.signal.aborted) return;
      if (outcome.kind === 'page') await this.repository.complete(job, this.instance, outcome.page);
      else if (outcome.kind === 'failed') await this.repository.fail(job, this.instance, outcome.reason);
      else await this.repository.release(job, this.instance);
    } catch (error) {
      if (lost.signal.aborted) return;
      this.logger.error(`job ${job.id} failed unexpectedly: ${(error as Error).message}`);
      await this.repository
        .fail(job, this.instance, 'Switchyard failed while writing the page; try again')
        .catch(() => undefined);
    } finally {
      clearInterval(renew);
    }
  }
}
