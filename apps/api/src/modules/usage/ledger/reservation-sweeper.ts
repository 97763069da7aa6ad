import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { MetricsService } from '../../../common/metrics/metrics';
import { Leases } from './leases';
import { RESERVATION_TTL_SECONDS } from './reservation';
import { ReservationsRepository } from './reservations.repository';

const HEARTBEAT_MS = 60_000;
const SWEEP_MS = 30_000;

/**
 * Reservations outlive no instance by more than their expiry (docs/budgets.md, "What a call reserves", 6): every
 * minute this instance extends the reservations it keeps alive — calls reserved in the database that run here or
 * whose settlement is not yet written, and its leases —, and every 30 seconds, on every instance, the sweeper settles
 * reservations left open past their expiry (their instance died) at the input estimate recorded when they were made.
 */
@Injectable()
export class ReservationSweeper implements OnModuleInit {
  /** Reservations of calls this instance runs or has yet to settle: the heartbeat keeps them from the sweeper. */
  private readonly running = new Set<string>();
  private timers: NodeJS.Timeout[] = [];
  private readonly logger = new Logger('Reservations');

  constructor(
    private readonly ledger: ReservationsRepository,
    private readonly leases: Leases,
    private readonly metrics: MetricsService,
  ) {}

  onModuleInit(): void {
    this.metrics.registerGauge(
      'switchyard_reservations_open',
      'Reservations held by calls in flight, on every instance',
      () => this.ledger.countOpen(),
    );
    const heartbeat = setInterval(
      () => void this.ledger.extend(this.heldHere(), RESERVATION_TTL_SECONDS).catch(() => undefined),
      HEARTBEAT_MS,
    );
    const sweep = setInterval(
      () => void this.sweepExpired().catch((error: Error) => this.logger.error(`sweep failed: ${error.message}`)),
      SWEEP_MS,
    );
    for (const timer of [heartbeat, sweep]) timer.unref();
    this.timers = [heartbeat, sweep];
  }

  /** At shutdown: no more heartbeats or sweeps. */
  stop(): void {
    for (const timer of this.timers) clearInterval(timer);
  }

  /** A call reserved in the database runs here: its reservation is extended until its settlement is written. */
  keepAlive(id: string): void {
    this.running.add(id);
  }

  /** The call's settlement is written: its reservation is closed and needs no heartbeat. */
  forget(id: string): void {
    this.running.delete(id);
  }

  /** Reservations this instance keeps alive: calls reserved in the database and leases not yet returned. */
  heldHere(): string[] {
    return [...this.running, ...this.leases.heldIds()];
  }

  /** Settles reservations whose instance died: billed the estimated input recorded when they were made. */
  async sweepExpired(): Promise<number> {
    let settled = 0;
    for (const expired of await this.ledger.expired(100)) {
      if ((await this.ledger.settle(expired.id, expired.inputEstimateMicros, 'expired')) !== null) settled += 1;
    }
    return settled;
  }
}
