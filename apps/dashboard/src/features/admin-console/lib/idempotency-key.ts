/**
 * A random UUID (version 4) for an adjustment's idempotency key: one per submission, kept until it succeeds, so a
 * retried or double-clicked submission adjusts once. `crypto.randomUUID` exists only in secure contexts, so the
 * UUID is made from `getRandomValues`, which exists everywhere.
 */
export function newIdempotencyKey(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  bytes[6] = (bytes[6] & 0x0f) | 0x40;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const hex = [...bytes].map((byte) => byte.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** An amount as typed for an adjustment: a signed decimal with at most 6 places, not zero; or what is wrong. */
export function parseAdjustment(text: string): { ok: true; value: number } | { ok: false; problem: string } {
  const trimmed = text.trim().replace(/^\+/, '');
  if (!/^-?(?:\d+(?:\.\d+)?|\.\d+)$/.test(trimmed))
    return { ok: false, problem: 'Enter an amount such as 5, 0.25 or -1.50 (negative takes money away).' };
  if ((trimmed.split('.')[1] ?? '').length > 6) return { ok: false, problem: 'Use at most 6 decimal places.' };
  const value = Number(trimmed);
  if (value === 0) return { ok: false, problem: 'An adjustment of 0 changes nothing.' };
  if (Math.abs(value) > 1_000_000) return { ok: false, problem: 'At most 1,000,000 either way.' };
  return { ok: true, value };
}
