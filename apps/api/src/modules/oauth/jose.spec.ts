import { createPublicKey, verify } from 'node:crypto';
import { accessTokenHash, newSigningKey, openPrivateKey, sealPrivateKey, signJwt } from './jose';

const SECRET = 'a secret of more than thirty-two characters';

describe('ID token signing (jose.ts)', () => {
  it('signs an RS256 JWT that the published public key verifies, and only that key', async () => {
    const key = await newSigningKey(SECRET);
    const privateKey = openPrivateKey(key.stored, SECRET)!;
    const jwt = signJwt({ sub: 'u1' }, { kid: key.kid, privateKey });
    const [header, payload, signature] = jwt.split('.');
    expect(JSON.parse(Buffer.from(header, 'base64url').toString())).toEqual({ alg: 'RS256', typ: 'JWT', kid: key.kid });
    expect(JSON.parse(Buffer.from(payload, 'base64url').toString())).toEqual({ sub: 'u1' });
    const publicKey = createPublicKey({ key: { ...key.publicJwk }, format: 'jwk' });
    const input = Buffer.from(`${header}.${payload}`);
    expect(verify('sha256', input, publicKey, Buffer.from(signature, 'base64url'))).toBe(true);
    const other = await newSigningKey(null);
    expect(
      verify(
        'sha256',
        input,
        createPublicKey({ key: { ...other.publicJwk }, format: 'jwk' }),
        Buffer.from(signature, 'base64url'),
      ),
    ).toBe(false);
  });

  it('seals the private key with the secret: another secret or none cannot open it; without a secret it is PKCS#8', async () => {
    const key = await newSigningKey(SECRET);
    expect(key.stored).toMatch(/^aes-256-gcm:/);
    expect(key.stored).not.toContain('PRIVATE KEY');
    expect(openPrivateKey(key.stored, 'another secret of thirty-two characters!')).toBeNull();
    expect(openPrivateKey(key.stored, null)).toBeNull();
    const tampered = key.stored.slice(0, -4) + (key.stored.endsWith('AAAA') ? 'BBBB' : 'AAAA');
    expect(openPrivateKey(tampered, SECRET)).toBeNull();
    const plain = sealPrivateKey('-----BEGIN PRIVATE KEY-----', null);
    expect(plain).toBe('pkcs8:-----BEGIN PRIVATE KEY-----');
    expect(openPrivateKey(plain, SECRET)).toBeNull(); // not a key at all
  });

  it('has a kid that is the RFC 7638 thumbprint, and a public JWK without any private member', async () => {
    const key = await newSigningKey(null);
    expect(key.publicJwk.kid).toBe(key.kid);
    expect(key.kid).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Object.keys(key.publicJwk).sort()).toEqual(['alg', 'e', 'kid', 'kty', 'n', 'use']);
  });

  it('computes at_hash as the base64url left half of SHA-256 (OpenID Connect Core 3.1.3.6), as WebCrypto does', async () => {
    const token = 'sya_jHkWEdUXMU1BwAsC4vtUsZwnNY8';
    const digest = await globalThis.crypto.subtle.digest('SHA-256', new TextEncoder().encode(token));
    expect(accessTokenHash(token)).toBe(Buffer.from(digest.slice(0, 16)).toString('base64url'));
    expect(accessTokenHash(token)).toHaveLength(22);
  });
});
