import type { Pacing } from './streaming';

/** What every handler needs from the provider: the clock (seconds for `created` fields) and stream pacing. */
export interface HandlerContext {
  nowMs: number;
  pacing: Pacing;
}

export function unixSeconds(ctx: HandlerContext): number {
  return Math.floor(ctx.nowMs / 1000);
}
