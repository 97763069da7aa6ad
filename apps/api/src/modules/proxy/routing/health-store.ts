import {
  afterOutcome,
  type BreakerPolicy,
  CLOSED,
  DEFAULT_BREAKER_POLICY,
  forced,
  type LocalCounts,
  NO_COUNTS,
  type Outcome,
  type SharedBreaker,
} from './breaker';
import type { DeploymentStats } from './deployment-stats';

/** A breaker as stored: its shared state and a version that every write bumps (compare-and-set). */
export interface Versioned {
  shared: SharedBreaker;
  version: number;
}

export type BreakerListener = (key: string, shared: SharedBreaker) => void;

/**
 * Where the deployments' breakers live (docs/routing.md, "Health"): in process without REDIS_URL, in Redis with it,
 * so every instance agrees. Reads are synchronous (a local copy, kept fresh by the store: the balancer reads it on
 * every call); writes happen only on a transition (open, close, force), compare-and-set, so two instances opening
 * the same breaker at once open it once.
 */
export abstract class HealthStore {
  private readonly counts = new Map<string, LocalCounts>();
  private readonly listeners = new Set<BreakerListener>();

  protected constructor(
    protected readonly now: () => number,
    protected readonly policy: BreakerPolicy,
  ) {}

  /** The breaker of a deployment as this instance knows it (closed when it never opened). */
  abstract breaker(key: string): SharedBreaker;

  /**
   * Takes the single probe of a half-open breaker: true for one caller among every instance until the probe's
   * outcome is recorded or `leaseMs` passes (a probe whose instance died frees it then).
   */
  abstract acquireProbe(key: string, leaseMs: number): Promise<boolean>;

  /** Lets another call probe (the probe ended without telling anything: the caller left). */
  abstract releaseProbe(key: string): Promise<void>;

  /** Reads the stored state afresh (the admin command; tests). */
  abstract read(key: string): Promise<SharedBreaker>;

  /** Adds this instance's per-minute counts to the shared ones (Redis), and reads back every instance's. */
  abstract syncMinutes(stats: DeploymentStats, limited: Iterable<string>): Promise<void>;

  abstract close(): Promise<void>;

  /** The stored version of a breaker, as last known. */
  protected abstract known(key: string): Versioned;

  /** Writes `next` if the stored version is still `version`; else returns what is stored now. */
  protected abstract write(key: string, version: number, next: SharedBreaker): Promise<Versioned | null>;

  /** Tells every instance that a breaker changed (after a successful write). */
  protected abstract announce(key: string): Promise<void>;

  /** Called on a breaker change, local or learned from another instance. */
  onChange(listener: BreakerListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Records an attempt's outcome: this instance's counts move, and when they open (or a probe closes, or a 429 cools)
   * the breaker, the transition is written for every instance. A probe's outcome frees the probe.
   */
  async record(key: string, outcome: Outcome): Promise<SharedBreaker> {
    const now = this.now();
    const before = this.counts.get(key) ?? NO_COUNTS;
    try {
      // A conflict means another instance changed the breaker meanwhile: apply the outcome to what it wrote.
      for (let tries = 0; tries < 4; tries += 1) {
        const base = this.known(key);
        const next = afterOutcome(base.shared, before, outcome, now, this.policy);
        this.counts.set(key, next.local);
        if (next.shared === base.shared) return base.shared;
        const conflict = await this.write(key, base.version, next.shared);
        if (!conflict) {
          await this.changed(key, next.shared);
          return next.shared;
        }
        this.adopt(key, conflict);
      }
      return this.known(key).shared;
    } finally {
      if (outcome.probe) await this.releaseProbe(key);
    }
  }

  /** Forces a breaker open (until forced closed) or closed, for every instance (`npm run admin -- breakers`). */
  async force(key: string, state: 'open' | 'closed'): Promise<SharedBreaker> {
    for (let tries = 0; tries < 4; tries += 1) {
      const base = await this.fresh(key);
      const next = forced(base.shared, state);
      if (!(await this.write(key, base.version, next))) {
        this.counts.delete(key);
        await this.changed(key, next);
        await this.releaseProbe(key);
        return next;
      }
    }
    throw new Error(`breaker ${key} kept changing while it was being forced ${state}; try again`);
  }

  /** The stored version, read afresh (the in-process store's is always fresh). */
  protected async fresh(key: string): Promise<Versioned> {
    return this.known(key);
  }

  /**
   * Takes what another instance stored: a new state starts this instance's counts afresh (faults counted before an
   * opening or a close must not open it again the moment it closes).
   */
  protected adopt(key: string, stored: Versioned): void {
    const previous = this.known(key);
    this.remember(key, stored);
    if (stored.version !== previous.version) this.counts.delete(key);
    if (stored.shared.state !== previous.shared.state || stored.shared.until !== previous.shared.until)
      this.emit(key, stored.shared);
  }

  /** Keeps a stored version as the known one. */
  protected abstract remember(key: string, stored: Versioned): void;

  private async changed(key: string, shared: SharedBreaker): Promise<void> {
    this.emit(key, shared);
    await this.announce(key);
  }

  protected emit(key: string, shared: SharedBreaker): void {
    for (const listener of this.listeners) listener(key, shared);
  }
}

/** Breakers in this process only (no REDIS_URL): one instance, so what it knows is what is stored. */
export class InProcessHealthStore extends HealthStore {
  private readonly stored = new Map<string, Versioned>();
  private readonly probes = new Map<string, number>();

  constructor(now: () => number = Date.now, policy: BreakerPolicy = DEFAULT_BREAKER_POLICY) {
    super(now, policy);
  }

  breaker(key: string): SharedBreaker {
    return this.known(key).shared;
  }

  async acquireProbe(key: string, leaseMs: number): Promise<boolean> {
    const now = this.now();
    const held = this.probes.get(key);
    if (held !== undefined && held > now) return false;
    this.probes.set(key, now + leaseMs);
    return true;
  }

  async releaseProbe(key: string): Promise<void> {
    this.probes.delete(key);
  }

  async read(key: string): Promise<SharedBreaker> {
    return this.known(key).shared;
  }

  async syncMinutes(): Promise<void> {
    // One instance: its own counts are every instance's.
  }

  async close(): Promise<void> {}

  protected known(key: string): Versioned {
    return this.stored.get(key) ?? { shared: CLOSED, version: 0 };
  }

  protected remember(key: string, stored: Versioned): void {
    this.stored.set(key, stored);
  }

  protected async write(key: string, version: number, next: SharedBreaker): Promise<Versioned | null> {
    const current = this.known(key);
    if (current.version !== version) return current;
    this.stored.set(key, { shared: next, version: version + 1 });
    return null;
  }

  protected async announce(): Promise<void> {}
}
