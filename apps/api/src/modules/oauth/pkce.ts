import { createHash, timingSafeEqual } from 'node:crypto';

/** RFC 7636 section 4.1: 43-128 unreserved characters. */
const VERIFIER = /^[A-Za-z0-9\-._~]{43,128}$/;
/** An S256 challenge is the base64url of a SHA-256: 43 characters, no padding. */
const S256_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

export function isS256Challenge(challenge: string): boolean {
  return S256_CHALLENGE.test(challenge);
}

export function isValidVerifier(verifier: unknown): verifier is string {
  return typeof verifier === 'string' && VERIFIER.test(verifier);
}

export function s256(verifier: string): string {
  return createHash('sha256').update(verifier, 'ascii').digest('base64url');
}

/** Whether the verifier hashes to the challenge (constant time). */
export function verifierMatches(verifier: string, challenge: string): boolean {
  const expected = Buffer.from(challenge);
  const actual = Buffer.from(s256(verifier));
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}
