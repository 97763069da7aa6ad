import { CodeBlock } from '../../../components/ui/code-block';
import { Link } from '../../../lib/router';
import { DocSection } from './doc-section';

/** The authorization code flow with PKCE (docs/oauth.md#the-flow-for-an-app), one step at a time, in browser JavaScript. */
export function OAuthGuide({ origin, baseUrl }: { origin: string; baseUrl: string }) {
  return (
    <DocSection id="oauth" title="Sign in with Switchyard: OAuth 2 with PKCE">
      <p>
        An app that acts for its users (so each user pays from their own budget, within the caps they set) uses the
        authorization code flow with PKCE. No client secret is needed, so it suits single-page, mobile and desktop
        apps. Any standard OAuth library works; here is the flow by hand.
      </p>
      <ol className="doc-steps">
        <li>
          <p>
            Register the app on <Link href="/apps">OAuth apps</Link> with its exact redirect URI (custom schemes such as{' '}
            <code className="mono">myapp://callback</code> are allowed) and the scopes it needs:{' '}
            <code className="mono">api:access</code> to call models, <code className="mono">profile:read</code> to read
            the user&apos;s name and email. Note its client ID.
          </p>
        </li>
        <li>
          <p>
            For each sign-in, make a random <strong>code verifier</strong> (43 to 128 characters), its{' '}
            <strong>code challenge</strong> (BASE64URL of its SHA-256, no padding) and a random <strong>state</strong>.
            Keep the verifier and state until the user comes back.
          </p>
          <CodeBlock
            caption="JavaScript (browser or Node 20+)"
            code={`const base64url = (bytes) =>
  btoa(String.fromCharCode(...new Uint8Array(bytes))).replace(/\\+/g, '-').replace(/\\//g, '_').replace(/=+$/, '');

const verifier = base64url(crypto.getRandomValues(new Uint8Array(32))); // 43 characters
const challenge = base64url(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier)));
const state = base64url(crypto.getRandomValues(new Uint8Array(16)));
sessionStorage.setItem('pkce', JSON.stringify({ verifier, state }));`}
          />
        </li>
        <li>
          <p>Send the user to the authorize URL. They sign in, see what the app asks for, may cap its spending, and allow or deny.</p>
          <CodeBlock
            caption="JavaScript"
            code={`const url = new URL('${origin}/oauth2/authorize');
url.search = new URLSearchParams({
  client_id: CLIENT_ID,
  response_type: 'code',
  redirect_uri: 'https://app.example/callback',
  scope: 'api:access profile:read',
  state,
  code_challenge: challenge,
  code_challenge_method: 'S256',
}).toString();
location.assign(url);`}
          />
        </li>
        <li>
          <p>
            Back at the redirect URI, check that <code className="mono">state</code> equals the one you sent before you
            use the code (a code lives 60 seconds and works once), then exchange it with the verifier.
          </p>
          <CodeBlock
            caption="JavaScript"
            code={`const params = new URLSearchParams(location.search);
const saved = JSON.parse(sessionStorage.getItem('pkce'));
if (params.get('error')) throw new Error(params.get('error_description') ?? params.get('error'));
if (params.get('state') !== saved.state) throw new Error('state mismatch: start again');

const response = await fetch('${origin}/oauth2/token', {
  method: 'POST',
  headers: { 'Content-Type': 'application/json' },
  body: JSON.stringify({
    grantType: 'authorization_code',
    code: params.get('code'),
    codeVerifier: saved.verifier,
    clientId: CLIENT_ID,
    redirectUri: 'https://app.example/callback',
  }),
});
const tokens = await response.json(); // { access_token, refresh_token, expires_in, token_type, scope }`}
          />
        </li>
        <li>
          <p>
            Call the gateway with the access token <em>and</em> the app&apos;s client ID in{' '}
            <code className="mono">X-Service-OAuth-Client-Id</code>; a missing or different client ID is refused. The
            token goes in the header, never in the URL.
          </p>
          <CodeBlock
            caption="JavaScript (openai SDK)"
            code={`import OpenAI from 'openai';

const client = new OpenAI({
  baseURL: '${baseUrl}',
  apiKey: tokens.access_token,
  defaultHeaders: { 'X-Service-OAuth-Client-Id': CLIENT_ID },
  dangerouslyAllowBrowser: true, // the token is the user's own, not a secret of yours
});
const completion = await client.chat.completions.create({
  model: 'demo-chat',
  messages: [{ role: 'user', content: 'Hello!' }],
});`}
          />
        </li>
        <li>
          <p>
            Access tokens last an hour by default. On a 401, refresh once; if that fails, start the sign-in again. Each
            refresh returns a new refresh token: use the new one, as an old one presented again ends the whole grant.
          </p>
          <CodeBlock
            caption="JavaScript"
            code={`const refreshed = await fetch('${origin}/oauth2/token', {
  method: 'POST',
  headers: { 'Content-Type': 'application/json' },
  body: JSON.stringify({ grantType: 'refresh_token', refreshToken: tokens.refresh_token, clientId: CLIENT_ID }),
}).then((r) => r.json());`}
          />
        </li>
        <li>
          <p>
            To sign out, revoke the refresh token (it ends the grant). Users can also revoke the app themselves on{' '}
            <Link href="/authorized-apps">Authorized apps</Link>.
          </p>
          <CodeBlock caption="curl" code={`curl -X POST "${origin}/oauth2/revoke" -d "token=$REFRESH_TOKEN"`} />
        </li>
      </ol>
      <p className="muted small">
        Server metadata (RFC 8414) for libraries that discover endpoints:{' '}
        <code className="mono">{origin}/.well-known/oauth-authorization-server</code>.
      </p>
    </DocSection>
  );
}
