/**
 * Runs a writer (a batch flush) one run at a time: a caller that arrives while a run is in progress waits for it,
 * then runs again for whatever arrived meanwhile, so a caller that awaits run() knows its items were written.
 */
export class OneAtATime {
  private running: Promise<void> | null = null;

  async run(work: () => Promise<void>): Promise<void> {
    while (this.running) await this.running.catch(() => undefined);
    this.running = work().finally(() => {
      this.running = null;
    });
    await this.running;
  }
}
