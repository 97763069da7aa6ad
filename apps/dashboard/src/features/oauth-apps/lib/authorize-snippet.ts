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

/**
 * The SDK's quick start for this app (docs/sdk.md): the script tag from this server, a sign-in button, the
 * balance, and a streamed chat on the user's budget. The redirect URI the page must be served at is the app's
 * first web one; the page is that address.
 */
export function sdkSnippet(origin: string, app: App): string {
  const redirectUri = app.redirectUris.find((uri) => /^https?:/.test(uri));
  return `<!-- Serve this page at ${redirectUri ?? 'one of your https redirect URIs'} -->
<script src="${origin}/sdk/v1/switchyard.js"></script>
<button data-switchyard-button></button> <span data-switchyard-balance></span>
<script>
  const sy = Switchyard.init({ clientId: ${JSON.stringify(app.clientId)}${redirectUri ? `, redirectUri: ${JSON.stringify(redirectUri)}` : ''} });
  // Then, from a click: the user's budget pays; a refused call opens the top-up or cap popup and runs again.
  const answer = await sy.withBudgetRetry(() => sy.fetch('/v1/chat/completions', { method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'demo-chat', messages: [{ role: 'user', content: 'Hello!' }] }) }));
</script>`;
}
