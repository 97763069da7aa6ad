export const DAY_MS = 86_400_000;

export interface UsageWindow {
  /** Whole UTC days, as YYYY-MM-DD, from `from` up to but not including `to`: read from the daily rollups. */
  days: { from: string; to: string } | null;
  /** The parts of partial days at the window's edges: read from usage_records. */
  edges: { from: Date; to: Date }[];
}

/**
 * Splits the window [from, to) into the whole UTC days inside it and the partial days at its ends, so that sums
 * over the daily rollups plus the raw rows of the edges equal sums over the raw rows of the whole window.
 */
export function splitWindow(from: Date, to: Date): UsageWindow {
  const start = from.getTime();
  const end = to.getTime();
  if (!(start < end)) return { days: null, edges: [] };
  const firstDay = Math.ceil(start / DAY_MS) * DAY_MS;
  const lastDay = Math.floor(end / DAY_MS) * DAY_MS;
  if (firstDay >= lastDay) return { days: null, edges: [{ from, to }] };
  const edges: UsageWindow['edges'] = [];
  if (start < firstDay) edges.push({ from, to: new Date(firstDay) });
  if (lastDay < end) edges.push({ from: new Date(lastDay), to });
  const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
  return { days: { from: day(firstDay), to: day(lastDay) }, edges };
}

/** Builds one SELECT over a part of the window, given the placeholders of its bounds. */
export type UsagePart = (from: string, to: string) => string;

/**
 * One UNION ALL of `days` over the window's whole days (bounds are dates) and `raw` over each partial day at its
 * edges (bounds are timestamps). The bounds are appended to `params`; `null` when the window is empty.
 */
export function usageSource(
  window: UsageWindow,
  parts: { days: UsagePart; raw: UsagePart },
  params: unknown[],
): string | null {
  const selects: string[] = [];
  if (window.days) {
    params.push(window.days.from, window.days.to);
    selects.push(parts.days(`$${params.length - 1}::date`, `$${params.length}::date`));
  }
  for (const edge of window.edges) {
    params.push(edge.from, edge.to);
    selects.push(parts.raw(`$${params.length - 1}`, `$${params.length}`));
  }
  return selects.length ? selects.join(' UNION ALL ') : null;
}
