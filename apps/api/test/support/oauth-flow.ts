import { LedgerService } from '../../src/modules/usage';
import * as oauth from 'oauth4webapi';
import { CSRF_COOKIE, SESSION_COOKIE } from '@switchyard/shared-dto';
import { TestApp, uniqueEmail } from './test-app';

/** The redirect URI test apps register (nothing listens there: tests read the redirect's Location). */
export const CALLBACK = 'http://127.0.0.1:8765/callback';
/** oauth4webapi refuses http:// unless told; the test app listens on http. */
export const insecure = { [oauth.allowInsecureRequests]: true };

// freePort lives beside the app boot (startTwoInstances takes one too); the suites import it from here as well.
export { freePort } from './test-app';

export interface OAuthTestUser {
  id: string;
  session: string;
  csrf: string;
  cookie: string;
}

/**
 * OAuth2 from the outside, as an app maker and a user's browser do it against a test app whose PUBLIC_URL is its
 * own address: discovery, app registration, authorize + consent, and the code exchange with PKCE (oauth4webapi).
 * `owner` registers apps; `alice` (with credit) is the default user who consents.
 */
export class OAuthTestKit {
  as!: oauth.AuthorizationServer;
  owner!: OAuthTestUser;
  alice!: OAuthTestUser;

  private constructor(readonly app: TestApp) {}

  static async start(app: TestApp): Promise<OAuthTestKit> {
    const kit = new OAuthTestKit(app);
    const issuer = new URL(app.config.publicUrl);
    kit.as = await oauth.processDiscoveryResponse(
      issuer,
      await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...insecure }),
    );
    kit.owner = await kit.newUser(0);
    kit.alice = await kit.newUser();
    return kit;
  }

  async newUser(credit = 5_000_000): Promise<OAuthTestUser> {
    const res = await this.app.http('/api/v1/auth/register', {
      body: { email: uniqueEmail('oauth'), password: 'oauth password' },
    });
    const id = res.body.data.user.id as string;
    if (credit)
      await this.app.app.get(LedgerService).credit(id, credit, 'admin_adjustment', 'test', `oauth-test:${id}`);
    return {
      id,
      session: res.body.data.token,
      csrf: res.cookies[CSRF_COOKIE],
      cookie: `${SESSION_COOKIE}=${res.cookies[SESSION_COOKIE]}; ${CSRF_COOKIE}=${res.cookies[CSRF_COOKIE]}`,
    };
  }

  async createClient(body: Record<string, unknown> = {}, by: OAuthTestUser = this.owner) {
    const res = await this.app.http('/api/v1/oauth2/clients', {
      token: by.session,
      body: {
        clientName: 'Test App',
        redirectUris: [CALLBACK],
        requestedScopes: ['api:access', 'profile:read'],
        ...body,
      },
    });
    expect(res.status).toBe(201);
    return res.body.data as {
      id: number;
      clientId: string;
      clientSecret?: string;
      clientType: string;
      requestsPerMinute: number | null;
    };
  }

  pkce() {
    const verifier = oauth.generateRandomCodeVerifier();
    return { verifier, challengePromise: oauth.calculatePKCECodeChallenge(verifier) };
  }

  /** GET /oauth2/authorize as the user's browser would, without following the redirect. */
  async authorize(params: Record<string, string>, user: OAuthTestUser | null = this.alice) {
    const res = await fetch(`${this.app.url}/oauth2/authorize?${new URLSearchParams(params).toString()}`, {
      redirect: 'manual',
      headers: user ? { cookie: user.cookie } : {},
    });
    return { status: res.status, location: res.headers.get('location'), text: await res.text(), headers: res.headers };
  }

  /** The whole browser side: authorize, consent if asked (Allow), back at the callback with a code. */
  async codeFor(
    clientId: string,
    options: {
      scope?: string;
      user?: OAuthTestUser;
      state?: string;
      limits?: unknown;
      markupPercent?: number;
      /** Where the app is registered to take its codes (default CALLBACK). */
      redirectUri?: string;
    } = {},
  ) {
    const redirectUri = options.redirectUri ?? CALLBACK;
    const { verifier, challengePromise } = this.pkce();
    const state = options.state ?? oauth.generateRandomState();
    const params = {
      client_id: clientId,
      response_type: 'code',
      redirect_uri: redirectUri,
      scope: options.scope ?? 'api:access profile:read',
      state,
      code_challenge: await challengePromise,
      code_challenge_method: 'S256',
    };
    const user = options.user ?? this.alice;
    let { location } = await this.authorize(params, user);
    if (location?.startsWith('/consent?')) {
      // As the consent page does: the markup it showed is the one the user agrees to.
      const shown = await this.app.http(`/api/v1/oauth2/authorize/request?${new URLSearchParams(params).toString()}`, {
        token: user.session,
      });
      const markupPercent = options.markupPercent ?? shown.body.data?.markupPercent;
      const decision = await this.app.http('/api/v1/oauth2/authorize/decision', {
        token: user.session,
        body: {
          ...params,
          approve: true,
          ...(options.limits ? { limits: options.limits } : {}),
          ...(markupPercent !== undefined ? { markupPercent } : {}),
        },
      });
      expect(decision.status).toBe(200);
      location = decision.body.data.redirectTo;
    }
    const callback = new URL(location!);
    expect(callback.origin + callback.pathname).toBe(redirectUri);
    return { callback, verifier, state, params };
  }

  /** An access and refresh token pair for the client, through the code flow. */
  async tokensFor(
    client: { clientId: string; clientSecret?: string },
    options: Parameters<OAuthTestKit['codeFor']>[1] = {},
  ) {
    const { callback, verifier, state } = await this.codeFor(client.clientId, options);
    const oauthClient: oauth.Client = { client_id: client.clientId };
    const auth = client.clientSecret ? oauth.ClientSecretBasic(client.clientSecret) : oauth.None();
    const params = oauth.validateAuthResponse(this.as, oauthClient, callback, state);
    const response = await oauth.authorizationCodeGrantRequest(
      this.as,
      oauthClient,
      auth,
      params,
      options.redirectUri ?? CALLBACK,
      verifier,
      insecure,
    );
    if (response.status !== 200) throw new Error(`token endpoint: ${response.status} ${await response.clone().text()}`);
    return oauth.processAuthorizationCodeResponse(this.as, oauthClient, response);
  }
}
