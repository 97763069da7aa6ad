/** RFC 7636 with S256, on WebCrypto (browsers and Node 20+ alike). */

const encode = (bytes: Uint8Array): string =>
  btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');

/** `bytes` random bytes, base64url: 32 give a 43-character verifier, state or nonce (256 bits). */
export function randomString(bytes = 32): string {
  return encode(crypto.getRandomValues(new Uint8Array(bytes)));
}

/** BASE64URL(SHA-256(verifier)), without padding. */
export async function s256(verifier: string): Promise<string> {
  return encode(new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier))));
}

/** An ID token's claims, read without checking the signature: it came straight from the token endpoint over TLS
 * (OpenID Connect Core 3.1.3.7). A server that needs proof verifies it against the JWKS (docs/oauth.md). */
export function jwtClaims(jwt: string): Record<string, unknown> {
  const part = jwt.split('.')[1] ?? '';
  const binary = atob(part.replace(/-/g, '+').replace(/_/g, '/'));
  const text = new TextDecoder().decode(Uint8Array.from(binary, (char) => char.charCodeAt(0)));
  return JSON.parse(text) as Record<string, unknown>;
}
