const DAY_MS = 86_400_000;

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

export interface UsageSourceColumns {
  /** Select-list expressions over usage_daily (an alias each), e.g. `model AS key`. */
  daily: string;
  /** The same columns over one row of usage_records. */
  raw: string;
}

/**
 * One UNION ALL over the rollups for the window's whole days and usage_records for its edges, each filtered by
 * `where` (the same columns exist in both tables). Parameters are appended to `params`; `null` when the window
 * is empty.
 */
export function usageSource(window: UsageWindow, columns: UsageSourceColumns, where: string, params: unknown[]): string | null {
  const parts: string[] = [];
  if (window.days) {
    params.push(window.days.from, window.days.to);
    parts.push(`SELECT ${columns.daily} FROM usage_daily
                 WHERE ${where} AND day >= $${params.length - 1}::date AND day < $${params.length}::date`);
  }
  for (const edge of window.edges) {
    params.push(edge.from, edge.to);
    parts.push(`SELECT ${columns.raw} FROM usage_records
                 WHERE ${where} AND started_at >= $${params.length - 1} AND started_at < $${params.length}`);
  }
  return parts.length ? parts.join(' UNION ALL ') : null;
}
