/** What the upstream client and the relay read of a call's cancellation: an AbortSignal has it, and so has Cancel. */
export interface CancelSignal {
  readonly aborted: boolean;
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

/**
 * A gateway call's cancellation (the caller left, or the shutdown cut it): an AbortController's job for the hot
 * path without its EventTarget, whose construction and listeners measured about 3% of a call's CPU
 * (docs/benchmarks.md). An AbortSignal is made only for an API that needs a real one (the demo provider's timers).
 */
export class Cancel implements CancelSignal {
  aborted = false;
  reason: unknown = undefined;
  private listeners: (() => void)[] = [];
  private controller: AbortController | null = null;

  abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    this.controller?.abort(reason);
    const listeners = this.listeners;
    this.listeners = [];
    for (const listener of listeners) listener();
  }

  /** Listeners run once, on abort (as with `{ once: true }` on an AbortSignal). */
  addEventListener(_type: 'abort', listener: () => void): void {
    if (!this.aborted) this.listeners.push(listener);
  }

  removeEventListener(_type: 'abort', listener: () => void): void {
    const at = this.listeners.indexOf(listener);
    if (at >= 0) this.listeners.splice(at, 1);
  }

  /** A real AbortSignal that follows this one, made on first use. */
  get abortSignal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.aborted) this.controller.abort(this.reason);
    }
    return this.controller.signal;
  }
}
