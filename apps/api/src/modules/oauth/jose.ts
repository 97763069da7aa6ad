import {
  createCipheriv,
  createDecipheriv,
  createHash,
  createPrivateKey,
  generateKeyPair,
  hkdfSync,
  type KeyObject,
  randomBytes,
  sign,
} from 'node:crypto';
import { promisify } from 'node:util';

/**
 * The little of JOSE that ID tokens need (RFC 7515 compact JWS with RS256, RFC 7517 JWKs), on node:crypto: a
 * library would add a dependency for three functions. Verification is the clients' side; the tests verify with
 * oauth4webapi and openid-client.
 */

const generate = promisify(generateKeyPair);

/** A public key as published at the JWKS URI. */
export interface PublicJwk {
  kty: 'RSA';
  n: string;
  e: string;
  kid: string;
  alg: 'RS256';
  use: 'sig';
}

export interface NewSigningKey {
  kid: string;
  publicJwk: PublicJwk;
  /** The private key as stored: sealed with the secret when there is one. */
  stored: string;
}

/** A fresh 2048-bit RSA key pair for RS256, OpenID Connect's default algorithm (Core section 15.1). */
export async function newSigningKey(secret: string | null): Promise<NewSigningKey> {
  const { publicKey, privateKey } = await generate('rsa', { modulusLength: 2048 });
  const jwk = publicKey.export({ format: 'jwk' }) as { n: string; e: string };
  // RFC 7638 thumbprint: a stable kid that says nothing but which key it is.
  const thumbprint = createHash('sha256')
    .update(JSON.stringify({ e: jwk.e, kty: 'RSA', n: jwk.n }))
    .digest('base64url');
  const pem = privateKey.export({ format: 'pem', type: 'pkcs8' }) as string;
  return {
    kid: thumbprint,
    publicJwk: { kty: 'RSA', n: jwk.n, e: jwk.e, kid: thumbprint, alg: 'RS256', use: 'sig' },
    stored: sealPrivateKey(pem, secret),
  };
}

const SEALED = 'aes-256-gcm:';
const PLAIN = 'pkcs8:';

function sealingKey(secret: string): Buffer {
  return Buffer.from(hkdfSync('sha256', secret, 'switchyard', 'oidc signing key', 32));
}

/** AES-256-GCM under a key derived from OIDC_KEY_SECRET; without a secret, the PEM as it is. */
export function sealPrivateKey(pem: string, secret: string | null): string {
  if (!secret) return PLAIN + pem;
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', sealingKey(secret), iv);
  const sealed = Buffer.concat([cipher.update(pem, 'utf8'), cipher.final()]);
  return SEALED + [iv, cipher.getAuthTag(), sealed].map((part) => part.toString('base64url')).join('.');
}

/** The private key, or null when it was sealed with another secret (or with one that is no longer set). */
export function openPrivateKey(stored: string, secret: string | null): KeyObject | null {
  try {
    if (stored.startsWith(PLAIN)) return createPrivateKey(stored.slice(PLAIN.length));
    if (!stored.startsWith(SEALED) || !secret) return null;
    const [iv, tag, sealed] = stored
      .slice(SEALED.length)
      .split('.')
      .map((part) => Buffer.from(part, 'base64url'));
    const decipher = createDecipheriv('aes-256-gcm', sealingKey(secret), iv);
    decipher.setAuthTag(tag);
    return createPrivateKey(Buffer.concat([decipher.update(sealed), decipher.final()]).toString('utf8'));
  } catch {
    return null;
  }
}

/** A compact JWS (RFC 7515) of `payload`, signed RS256 with `key`. */
export function signJwt(payload: Record<string, unknown>, key: { kid: string; privateKey: KeyObject }): string {
  const header = { alg: 'RS256', typ: 'JWT', kid: key.kid };
  const input = `${base64url(header)}.${base64url(payload)}`;
  return `${input}.${sign('sha256', Buffer.from(input), key.privateKey).toString('base64url')}`;
}

/** OpenID Connect Core section 3.1.3.6: the left half of the access token's SHA-256, base64url. */
export function accessTokenHash(accessToken: string): string {
  return createHash('sha256').update(accessToken, 'ascii').digest().subarray(0, 16).toString('base64url');
}

function base64url(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}
