import * as oauth from 'oauth4webapi';
import * as openid from 'openid-client';
import {
  CALLBACK,
  freePort,
  insecure,
  OAuthTestKit,
  type OAuthTestUser as User,
} from '../../../test/support/oauth-flow';
import { startTestApp, TestApp } from '../../../test/support/test-app';
import { sealPrivateKey } from './jose';
import { SigningKeysRepository } from './signing-keys.repository';
import { SigningKeysService } from './signing-keys.service';

const SECRET = 'a test secret that seals the signing keys';

/**
 * OpenID Connect as stock relying-party libraries see it, each with its default settings: oauth4webapi's default
 * discovery (/.well-known/openid-configuration) and openid-client's; ID tokens signed with the key published at
 * the JWKS URI, checked against it by both libraries; the nonce, at_hash and the profile and email claims.
 */
describe('OpenID Connect', () => {
  let app: TestApp;
  let kit: OAuthTestKit;
  let alice: User;
  let issuer: URL;

  beforeAll(async () => {
    const port = await freePort();
    app = await startTestApp({ port, publicUrl: `http://127.0.0.1:${port}`, signupCredit: 0, oidcKeySecret: SECRET });
    kit = await OAuthTestKit.start(app);
    alice = kit.alice;
    issuer = new URL(app.url);
    await app.http('/api/v1/auth/me', { method: 'PATCH', token: alice.session, body: { name: 'Alice Liddell' } });
  });
  afterAll(() => app?.close());

  /** The browser's part: authorize with these parameters, Allow on the consent page, back with a code. */
  async function callbackFor(params: Record<string, string>): Promise<URL> {
    let { location } = await kit.authorize(params, alice);
    if (location?.startsWith('/consent?')) {
      const decision = await app.http('/api/v1/oauth2/authorize/decision', {
        token: alice.session,
        body: { ...params, approve: true },
      });
      expect(decision.status).toBe(200);
      location = decision.body.data.redirectTo;
    }
    return new URL(location!);
  }

  it('serves the discovery document (200 JSON, not a redirect) that oauth4webapi reads by default', async () => {
    const raw = await fetch(`${app.url}/.well-known/openid-configuration`, { redirect: 'manual' });
    expect(raw.status).toBe(200);
    expect(raw.headers.get('content-type')).toMatch(/^application\/json/);
    // oauth4webapi's default discovery is OpenID Connect's (algorithm 'oidc').
    const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, insecure));
    expect(as).toMatchObject({
      issuer: app.url,
      jwks_uri: `${app.url}/oauth2/jwks`,
      id_token_signing_alg_values_supported: ['RS256'],
      subject_types_supported: ['public'],
      response_types_supported: ['code'],
    });
    expect(as.scopes_supported).toEqual(expect.arrayContaining(['openid', 'profile', 'email']));
    const rfc8414 = await (await fetch(`${app.url}/.well-known/oauth-authorization-server`)).json();
    expect(rfc8414).toEqual(as);
  });

  it('oauth4webapi: code + PKCE + nonce gives an ID token it validates, signed by a key of the JWKS', async () => {
    const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, insecure));
    const app1 = await kit.createClient({ clientName: 'Login App', requestedScopes: ['api:access'] });
    const client: oauth.Client = { client_id: app1.clientId };
    const verifier = oauth.generateRandomCodeVerifier();
    const nonce = oauth.generateRandomNonce();
    const state = oauth.generateRandomState();
    const callback = await callbackFor({
      client_id: app1.clientId,
      response_type: 'code',
      redirect_uri: CALLBACK,
      // Identity scopes need no registration: the app registered api:access only.
      scope: 'openid profile email api:access',
      state,
      nonce,
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    });
    const params = oauth.validateAuthResponse(as, client, callback, state);
    const response = await oauth.authorizationCodeGrantRequest(
      as,
      client,
      oauth.None(),
      params,
      CALLBACK,
      verifier,
      insecure,
    );
    const tokens = await oauth.processAuthorizationCodeResponse(as, client, response, {
      expectedNonce: nonce,
      requireIdToken: true,
    });
    // The signature against the JWKS URI (oauth4webapi checks the claims by default, the signature on request).
    await oauth.validateApplicationLevelSignature(as, response, insecure);
    const claims = oauth.getValidatedIdTokenClaims(tokens)!;
    expect(claims).toMatchObject({
      iss: app.url,
      sub: alice.id,
      aud: app1.clientId,
      nonce,
      name: 'Alice Liddell',
      email: expect.stringContaining('@example.com'),
      email_verified: false,
    });
    expect(claims.exp - claims.iat).toBe(3600);
    expect(tokens.scope).toBe('api:access email openid profile');

    // userinfo with the openid scope: the same claims, for the same subject.
    const info = await oauth.processUserInfoResponse(
      as,
      client,
      alice.id,
      await oauth.userInfoRequest(as, client, tokens.access_token, insecure),
    );
    expect(info).toMatchObject({ sub: alice.id, name: 'Alice Liddell', email: claims.email, email_verified: false });

    // A refresh gives a new ID token for the same subject, without the nonce (Core section 12.2).
    const refreshed = await oauth.refreshTokenGrantRequest(as, client, oauth.None(), tokens.refresh_token!, insecure);
    const again = await oauth.processRefreshTokenResponse(as, client, refreshed);
    await oauth.validateApplicationLevelSignature(as, refreshed, insecure);
    expect(oauth.getValidatedIdTokenClaims(again)).toMatchObject({ sub: alice.id, aud: app1.clientId });
    expect(oauth.getValidatedIdTokenClaims(again)!.nonce).toBeUndefined();

    // An ID token whose claims were changed after signing passes the claim checks but not the signature's.
    const [header, , signature] = tokens.id_token!.split('.');
    const payload = Buffer.from(JSON.stringify({ ...claims, email: 'mallory@example.com' })).toString('base64url');
    const forged = new Response(JSON.stringify({ ...tokens, id_token: `${header}.${payload}.${signature}` }), {
      headers: { 'content-type': 'application/json' },
    });
    await oauth.processAuthorizationCodeResponse(as, client, forged, { expectedNonce: nonce });
    await expect(oauth.validateApplicationLevelSignature(as, forged, insecure)).rejects.toThrow(/signature/i);
  });

  it('openid-client: discovery, the code grant with its checks, the ID token signature and userinfo', async () => {
    const registered = await kit.createClient({ clientName: 'Server Login', generateSecret: true });
    const config = await openid.discovery(
      issuer,
      registered.clientId,
      registered.clientSecret,
      openid.ClientSecretBasic(registered.clientSecret),
      { execute: [openid.allowInsecureRequests] },
    );
    // Verify every ID token's signature against the JWKS URI, not only its claims.
    openid.enableNonRepudiationChecks(config);
    const verifier = openid.randomPKCECodeVerifier();
    const nonce = openid.randomNonce();
    const state = openid.randomState();
    const url = openid.buildAuthorizationUrl(config, {
      redirect_uri: CALLBACK,
      scope: 'openid email',
      state,
      nonce,
      code_challenge: await openid.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    });
    const callback = await callbackFor(Object.fromEntries(url.searchParams));
    const tokens = await openid.authorizationCodeGrant(config, callback, {
      pkceCodeVerifier: verifier,
      expectedState: state,
      expectedNonce: nonce,
      idTokenExpected: true,
    });
    const claims = tokens.claims()!;
    expect(claims).toMatchObject({ iss: app.url, sub: alice.id, aud: registered.clientId, nonce });
    expect(claims.email).toContain('@example.com');
    // Only the scopes granted give claims: no profile, no name.
    expect(claims.name).toBeUndefined();
    const info = await openid.fetchUserInfo(config, tokens.access_token, alice.id);
    expect(info).toEqual({ sub: alice.id, email: claims.email, email_verified: false });
    // The JWKS is open to browsers (CORS) and holds public keys only.
    const res = await fetch(`${app.url}/oauth2/jwks`, { headers: { origin: 'https://rp.example' } });
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    const jwks = (await res.json()) as { keys: Record<string, unknown>[] };
    expect(jwks.keys.length).toBeGreaterThanOrEqual(1);
    for (const key of jwks.keys) {
      expect(Object.keys(key).sort()).toEqual(['alg', 'e', 'kid', 'kty', 'n', 'use']);
    }
  });

  it('refuses an unknown scope and an over-long nonce on the redirect URI; userinfo needs openid or profile:read', async () => {
    const registered = await kit.createClient({ clientName: 'Scoped App', requestedScopes: ['api:access'] });
    const base = {
      client_id: registered.clientId,
      response_type: 'code',
      redirect_uri: CALLBACK,
      state: 's',
      code_challenge: await oauth.calculatePKCECodeChallenge(oauth.generateRandomCodeVerifier()),
      code_challenge_method: 'S256',
    };
    const unknown = await kit.authorize({ ...base, scope: 'openid address' }, alice);
    expect(new URL(unknown.location!).searchParams.get('error')).toBe('invalid_scope');
    const notRegistered = await kit.authorize({ ...base, scope: 'openid profile:read' }, alice);
    expect(new URL(notRegistered.location!).searchParams.get('error')).toBe('invalid_scope');
    const long = await kit.authorize({ ...base, scope: 'openid', nonce: 'n'.repeat(256) }, alice);
    expect(new URL(long.location!).searchParams.get('error')).toBe('invalid_request');
    // A token without openid or profile:read gets 403 insufficient_scope from userinfo.
    const plain = await kit.tokensFor(registered, { scope: 'api:access' });
    expect(plain.id_token).toBeUndefined();
    const info = await fetch(`${app.url}/oauth2/userinfo`, {
      headers: { authorization: `Bearer ${plain.access_token}` },
    });
    expect(info.status).toBe(403);
    expect(info.headers.get('www-authenticate')).toContain('insufficient_scope');
  });

  it('stores private keys sealed, rotates each period and keeps the previous key published, one key per period', async () => {
    const rows: { private_key: string; public_jwk: unknown }[] = await app.database.dataSource.query(
      'SELECT private_key, public_jwk FROM oidc_signing_keys',
    );
    expect(rows.length).toBeGreaterThanOrEqual(1);
    for (const row of rows) {
      expect(row.private_key).toMatch(/^aes-256-gcm:/);
      expect(row.private_key).not.toContain('PRIVATE KEY');
      expect(JSON.stringify(row.public_jwk)).not.toMatch(/"(d|p|q|dp|dq|qi)"/);
    }
    const keys = app.app.get(SigningKeysService);
    const now = Date.now();
    const period = 30 * 86_400_000;
    const before = await keys.signingKey(now);
    // Ten callers at once in the next period, on this instance and as another instance would (a fresh service):
    // one new key between them.
    const next = now + period;
    const other = new SigningKeysService(app.app.get(SigningKeysRepository), app.config);
    const signers = await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 ? keys : other).signingKey(next)));
    expect(new Set(signers.map((key) => key.kid)).size).toBe(1);
    expect(signers[0].kid).not.toBe(before.kid);
    const published = await keys.jwks(next);
    expect(published.keys.map((key) => key.kid)).toEqual([signers[0].kid, before.kid]);
    // Two periods on, the first key is no longer published, and is deleted.
    const later = now + 2 * period;
    const third = await keys.signingKey(later);
    expect((await keys.jwks(later)).keys.map((key) => key.kid)).toEqual([third.kid, signers[0].kid]);
    const left: { kid: string }[] = await app.database.dataSource.query('SELECT kid FROM oidc_signing_keys');
    expect(left.map((row) => row.kid)).not.toContain(before.kid);
  });

  it('stores keys unsealed (never served) without a secret; replaces a key sealed with another secret', async () => {
    const fresh = await startTestApp({ signupCredit: 0, oidcKeySecret: null });
    try {
      const rows: { kid: string; private_key: string }[] = await fresh.database.dataSource.query(
        'SELECT kid, private_key FROM oidc_signing_keys',
      );
      expect(rows.map((row) => row.private_key.slice(0, 6))).toEqual(['pkcs8:']);
      const jwks = await (await fetch(`${fresh.url}/oauth2/jwks`)).text();
      expect(jwks).not.toContain('PRIVATE');
      expect(jwks).not.toMatch(/"d":/);
      // Another instance, started with a secret this one does not share, sealed the period's key: it is replaced.
      await fresh.database.dataSource.query(`UPDATE oidc_signing_keys SET private_key = $1`, [
        sealPrivateKey('-----BEGIN PRIVATE KEY-----', 'another secret of at least thirty-two characters'),
      ]);
      const other = new SigningKeysService(fresh.app.get(SigningKeysRepository), fresh.config);
      const key = await other.signingKey();
      expect(key.kid).not.toBe(rows[0].kid);
      const after: { kid: string }[] = await fresh.database.dataSource.query('SELECT kid FROM oidc_signing_keys');
      expect(after.map((row) => row.kid)).toEqual([key.kid]);
    } finally {
      await fresh.close();
    }
  });
});
