import crypto, { createHash, randomBytes, scrypt as scryptCallback, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';

const scrypt = promisify(scryptCallback) as (
  password: string,
  salt: Buffer,
  keylen: number,
  options: { N: number; r: number; p: number; maxmem: number },
) => Promise<Buffer>;

/** A secret with `bytes` random bytes (256 bits by default), base64url, behind a readable prefix. */
export function randomToken(prefix: string, bytes = 32): string {
  return prefix + randomBytes(bytes).toString('base64url');
}

/** How secrets are stored: SHA-256 suffices for high-entropy random tokens (not for passwords). */
export function sha256(value: string): string {
  return oneShotHash ? oneShotHash('sha256', value, 'hex') : createHash('sha256').update(value).digest('hex');
}

/** node's one-shot hash (20.12 and later): a third of createHash's cost for a short input, on every gateway call. */
const oneShotHash = (crypto as { hash?: (algorithm: string, data: string, encoding: 'hex') => string }).hash;

// scrypt, memory-hard: N=2^15, r=8 uses 32 MiB per hash (OWASP's minimum is N=2^17 with r=8 p=1 or
// equivalents; 2^15 with p=1 is the RFC 7914 interactive-login figure). The parameters are stored with each
// hash so they can be raised later without breaking existing passwords.
const SCRYPT = { logN: 15, r: 8, p: 1, keylen: 32 };

/**
 * `logN` replaces 15 only where the app was started with a lower cost in code, which the tests do to spare their
 * CPU (CreateAppOptions.passwordHashCost; no setting reaches it). Verifying reads the cost from the stored hash.
 */
export async function hashPassword(password: string, logN: number | null = null): Promise<string> {
  const cost = logN ?? SCRYPT.logN;
  const salt = randomBytes(16);
  const hash = await scrypt(password.normalize('NFKC'), salt, SCRYPT.keylen, {
    N: 2 ** cost,
    r: SCRYPT.r,
    p: SCRYPT.p,
    maxmem: 128 * 2 ** cost * SCRYPT.r * 2,
  });
  return ['scrypt', cost, SCRYPT.r, SCRYPT.p, salt.toString('base64'), hash.toString('base64')].join('$');
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, logN, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !hash) return false;
  const expected = Buffer.from(hash, 'base64');
  const actual = await scrypt(password.normalize('NFKC'), Buffer.from(salt, 'base64'), expected.length, {
    N: 2 ** Number(logN),
    r: Number(r),
    p: Number(p),
    maxmem: 128 * 2 ** Number(logN) * Number(r) * 2,
  });
  return timingSafeEqual(actual, expected);
}
