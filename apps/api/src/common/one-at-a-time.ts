/**
 * Runs a writer (a batch flush) one run at a time. A caller that arrives while a run is in progress gets the one
 * run that follows it, shared by every caller that arrived meanwhile, which writes whatever they queued: a caller
 * that awaits run() knows its items were written. Sharing matters under load: callers that each waited and
 * re-checked on their own (a batch-size trigger fires on every call once the queue is full) woke each other by the
 * thousand on every batch, and kept a slow database's instance busy long after the load had stopped.
 */
export class OneAtATime {
  private running: Promise<void> | null = null;
  private next: Promise<void> | null = null;

  /** A run is in progress. */
  get busy(): boolean {
    return this.running !== null;
  }

  run(work: () => Promise<void>): Promise<void> {
    if (!this.running) return this.start(work);
    this.next ??= this.running
      .catch(() => undefined)
      .then(() => {
        this.next = null;
        return this.running ? this.run(work) : this.start(work);
      });
    return this.next;
  }

  private start(work: () => Promise<void>): Promise<void> {
    const run: Promise<void> = Promise.resolve()
      .then(work)
      .finally(() => {
        if (this.running === run) this.running = null;
      });
    this.running = run;
    return run;
  }
}
