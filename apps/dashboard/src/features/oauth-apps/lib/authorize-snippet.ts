// The app's sign-in link and a ready PKCE snippet (RFC 7636, S256) for its owner to paste into the app: built
// from the app's own client id, first redirect URI and scopes, and the dashboard's origin (which serves /oauth2).
import type { OAuthClientResponse } from '@switchyard/shared-dto';

type App = Pick<OAuthClientResponse, 'clientId' | 'redirectUris' | 'scopes'>;

/** The authorize URL without the per-sign-in values (state, code_challenge), which the snippet adds. */
export function authorizeUrl(origin: string, app: App): string {
  const params = new URLSearchParams({
    response_type: 'code',
    client_id: app.clientId,
    redirect_uri: app.redirectUris[0] ?? '',
    scope: app.scopes.join(' '),
    code_challenge_method: 'S256',
  });
  return `${origin}/oauth2/authorize?${params.toString()}`;
}

/** Browser JavaScript: a code_verifier, its S256 code_challenge, a state, and the redirect to the authorize URL. */
export function pkceSnippet(origin: string, app: App): string {
  return `// Sign in with Switchyard: PKCE (S256). Keep the verifier and state until the redirect comes back.
const base64url = (bytes) =>
  btoa(String.fromCharCode(...new Uint8Array(bytes))).replace(/\\+/g, '-').replace(/\\//g, '_').replace(/=+$/, '');
const codeVerifier = base64url(crypto.getRandomValues(new Uint8Array(32)));
const codeChallenge = base64url(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(codeVerifier)));
const state = base64url(crypto.getRandomValues(new Uint8Array(16)));
sessionStorage.setItem('pkce', JSON.stringify({ codeVerifier, state }));

const url = new URL(${JSON.stringify(authorizeUrl(origin, app))});
url.searchParams.set('code_challenge', codeChallenge);
url.searchParams.set('state', state);
location.assign(url);

// Back at ${app.redirectUris[0] ?? 'your redirect URI'} with ?code=…&state=…: check the state, then
// POST ${origin}/oauth2/token with grant_type=authorization_code, code, redirect_uri,
// client_id=${app.clientId} and code_verifier.`;
}
