import { isS256Challenge, isValidVerifier, s256, verifierMatches } from './pkce';

describe('PKCE (RFC 7636)', () => {
  // RFC 7636 appendix B's example.
  const verifier = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';
  const challenge = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';

  it('computes the appendix B challenge', () => {
    expect(s256(verifier)).toBe(challenge);
    expect(verifierMatches(verifier, challenge)).toBe(true);
  });

  it('refuses a verifier that does not hash to the challenge', () => {
    expect(verifierMatches(`${verifier.slice(0, -1)}A`, challenge)).toBe(false);
    expect(verifierMatches(verifier, 'short')).toBe(false);
  });

  it('accepts 43 to 128 unreserved characters only', () => {
    expect(isValidVerifier('a'.repeat(42))).toBe(false);
    expect(isValidVerifier('a'.repeat(43))).toBe(true);
    expect(isValidVerifier('a'.repeat(128))).toBe(true);
    expect(isValidVerifier('a'.repeat(129))).toBe(false);
    expect(isValidVerifier(`${'a'.repeat(42)}+`)).toBe(false);
    expect(isValidVerifier(undefined)).toBe(false);
  });

  it('knows an S256 challenge from a plain one', () => {
    expect(isS256Challenge(challenge)).toBe(true);
    expect(isS256Challenge(verifier.slice(0, 40))).toBe(false);
    expect(isS256Challenge(`${challenge.slice(0, 42)}=`)).toBe(false);
  });
});
