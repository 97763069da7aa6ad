import { jwtClaims, randomString, s256 } from './pkce.js';

describe('PKCE (RFC 7636, S256)', () => {
  it('computes the challenge of RFC 7636 appendix B', async () => {
    expect(await s256('dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk')).toBe(
      'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    );
  });

  it('makes 43-character base64url verifiers, states and nonces, each different', () => {
    const made = new Set(Array.from({ length: 100 }, () => randomString()));
    expect(made.size).toBe(100);
    for (const value of made) expect(value).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('reads an ID token’s claims, UTF-8 included', () => {
    const payload = Buffer.from(JSON.stringify({ sub: 'u1', name: 'Zoë 😀' })).toString('base64url');
    expect(jwtClaims(`e30.${payload}.sig`)).toEqual({ sub: 'u1', name: 'Zoë 😀' });
  });
});
