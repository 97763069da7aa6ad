import { createHash } from 'node:crypto';

/**
 * Hash and seeded-random helpers. Everything the demo generates (reply ids, vectors, pictures, tones) is derived
 * from a SHA-256 of the request, so the same request always gets the same answer, on every machine.
 */

/** Hex SHA-256 over the parts, each length-prefixed so that ("ab","c") and ("a","bc") differ. */
export function sha256Hex(...parts: Array<string | Uint8Array>): string {
  const hash = createHash('sha256');
  for (const part of parts) {
    const bytes = typeof part === 'string' ? Buffer.from(part, 'utf8') : part;
    hash.update(String(bytes.length)).update(':').update(bytes);
  }
  return hash.digest('hex');
}

/** A 32-bit seed from the first 8 hex digits of a hash. */
export function seedFromHex(hex: string): number {
  return parseInt(hex.slice(0, 8), 16) >>> 0;
}

/** 32-bit FNV-1a of a string: cheap, used where a hash is needed per word or per token. */
export function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/** mulberry32: a tiny, fast, well-mixed PRNG; returns floats in [0, 1). Deterministic for a seed. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
