/**
 * How long a provider asked to wait, from its headers: `retry-after-ms` (OpenAI's, milliseconds), else
 * `Retry-After` in seconds or as an HTTP date (RFC 9110 section 10.2.3). Null when absent or unreadable.
 */
export function retryAfterMs(
  headers: Record<string, string | string[] | undefined> | undefined,
  now: number,
): number | null {
  if (!headers) return null;
  const read = (name: string): string | undefined => {
    for (const [key, value] of Object.entries(headers))
      if (key.toLowerCase() === name) return Array.isArray(value) ? value[0] : value;
    return undefined;
  };
  const ms = read('retry-after-ms')?.trim();
  if (ms && /^\d+(\.\d+)?$/.test(ms)) return Math.ceil(Number(ms));
  const value = read('retry-after')?.trim();
  if (!value) return null;
  if (/^\d+(\.\d+)?$/.test(value)) return Math.ceil(Number(value) * 1000);
  const date = Date.parse(value);
  if (Number.isNaN(date) || !/[a-z]/i.test(value)) return null;
  return Math.max(0, date - now);
}
