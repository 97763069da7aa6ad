import { authorizeUrl, pkceSnippet, sdkSnippet } from './authorize-snippet';

const app = {
  clientId: 'app_abc',
  redirectUris: ['https://app.example/callback', 'https://b.example/cb'],
  scopes: ['api:access', 'profile:read'],
} as const;

describe('the app sign-in link and PKCE snippet', () => {
  it('builds the authorize URL from the app: its client id, first redirect URI, scopes and S256', () => {
    const url = new URL(
      authorizeUrl('https://switchyard.example', {
        ...app,
        scopes: [...app.scopes],
        redirectUris: [...app.redirectUris],
      }),
    );
    expect(url.origin + url.pathname).toBe('https://switchyard.example/oauth2/authorize');
    expect(Object.fromEntries(url.searchParams)).toEqual({
      response_type: 'code',
      client_id: 'app_abc',
      redirect_uri: 'https://app.example/callback',
      scope: 'api:access profile:read',
      code_challenge_method: 'S256',
    });
  });

  it('makes a verifier, its SHA-256 challenge and a state, and names the token exchange', () => {
    const snippet = pkceSnippet('https://switchyard.example', {
      ...app,
      scopes: [...app.scopes],
      redirectUris: [...app.redirectUris],
    });
    expect(snippet).toContain("crypto.subtle.digest('SHA-256'");
    expect(snippet).toContain("url.searchParams.set('code_challenge', codeChallenge)");
    expect(snippet).toContain('client_id=app_abc and code_verifier');
    expect(snippet).toContain('https://switchyard.example/oauth2/token');
  });

  it('computes a challenge the way RFC 7636 appendix B does', async () => {
    // The snippet's base64url of SHA-256, run here on the RFC's verifier.
    const base64url = (bytes: ArrayBuffer) =>
      Buffer.from(bytes).toString('base64').replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
    const verifier = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';
    const challenge = base64url(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier)));
    expect(challenge).toBe('E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM');
  });
});

describe('the SDK snippet', () => {
  it('loads the script from this server, names the app, and its first web redirect URI', () => {
    const snippet = sdkSnippet('https://switchyard.example', {
      clientId: 'app_abc',
      redirectUris: ['com.example.app:/cb', 'https://app.example/'],
      scopes: ['api:access'],
    });
    expect(snippet).toContain('<script src="https://switchyard.example/sdk/v1/switchyard.js"></script>');
    expect(snippet).toContain('Switchyard.init({ clientId: "app_abc", redirectUri: "https://app.example/" })');
    expect(snippet).toContain('data-switchyard-button');
    expect(snippet).toContain('sy.withBudgetRetry');
  });
});
