import { randomBytes } from 'node:crypto';
import { Inject, Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import type { OAuthScope, TokenResponse } from '@switchyard/shared-dto';
import { OAUTH_ACCESS_TOKEN_PREFIX, OAUTH_REFRESH_TOKEN_PREFIX } from '../../common/auth/principal';
import { OAUTH_TOKENS_TOPIC } from '../../common/redis/topics';
import { randomToken, sha256 } from '../../common/crypto';
import { InvalidationBus } from '../../common/redis/invalidation-bus';
import { TtlCache } from '../../common/ttl-cache';
import { APP_CONFIG } from '../../config/config.module';
import type { AppConfig } from '../../config/config.schema';
import { AccountsService } from '../accounts';
import { ClientsService, type OAuthClient } from '../clients';
import { ConsentsService } from '../consents';
import { idTokenClaims } from './id-token';
import { SigningKeysService } from './signing-keys.service';
import { OAuthErrorCode, OAuthException } from './oauth.exception';
import { AccessTokenRow, IssuedTokenHashes, OAuthRepository } from './oauth.repository';
import { isValidVerifier, verifierMatches } from './pkce';

/** docs/decisions.md#names-and-defaults: a code lives 60 seconds. */
export const CODE_TTL_SECONDS = 60;
/**
 * How long after a refresh the same refresh token may be sent again and still work (docs/oauth.md): a client
 * that lost the answer and retries gets a new pair instead of losing its authorization.
 */
export const REFRESH_RETRY_GRACE_SECONDS = 10;
const POSITIVE_TTL_MS = 60_000;
const NEGATIVE_TTL_MS = 5_000;
const PURGE_MS = 3_600_000;
/** `sya_` / `syr_` and 43 base64url characters (256 bits). */
const TOKEN_LENGTH = OAUTH_ACCESS_TOKEN_PREFIX.length + 43;

export interface CodeBinding {
  clientPk: number;
  userId: string;
  redirectUri: string;
  scopes: OAuthScope[];
  codeChallenge: string;
  nonce: string | null;
}

const invalidGrant = (message: string) => new OAuthException(OAuthErrorCode.INVALID_GRANT, message);

/**
 * Codes and tokens (docs/decisions.md#names-and-defaults and #oauth-standards): opaque, stored as hashes, single-use codes bound to client,
 * redirect URI, PKCE challenge and user; refresh tokens rotate on use and a replayed one ends the whole grant.
 * Access-token lookups are cached per instance; anything that ends tokens early publishes on the invalidation
 * bus, which empties every instance's cache.
 */
@Injectable()
export class OAuthTokensService implements OnModuleInit, OnModuleDestroy {
  private readonly cache = new TtlCache<AccessTokenRow | null>(50_000);
  private purgeTimer: NodeJS.Timeout | undefined;
  private readonly logger = new Logger('OAuthTokens');

  constructor(
    private readonly repository: OAuthRepository,
    private readonly bus: InvalidationBus,
    private readonly consents: ConsentsService,
    private readonly clients: ClientsService,
    private readonly accounts: AccountsService,
    private readonly signingKeys: SigningKeysService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    this.bus.on(OAUTH_TOKENS_TOPIC, () => this.cache.clear());
    this.purgeTimer = setInterval(
      () =>
        void this.repository.purgeExpired().catch((error: Error) => this.logger.warn(`purge failed: ${error.message}`)),
      PURGE_MS,
    );
    this.purgeTimer.unref();
  }

  onModuleDestroy(): void {
    clearInterval(this.purgeTimer);
  }

  async issueCode(binding: CodeBinding): Promise<string> {
    const code = randomBytes(32).toString('base64url');
    await this.repository.insertCode(sha256(code), binding, CODE_TTL_SECONDS);
    return code;
  }

  /** The authorization_code grant (RFC 6749 section 4.1.3 with RFC 7636 section 4.6). */
  async exchangeCode(
    client: OAuthClient,
    code: string,
    verifier: unknown,
    redirectUri: string | undefined,
  ): Promise<TokenResponse> {
    if (!code) throw new OAuthException(OAuthErrorCode.INVALID_REQUEST, 'code is required');
    const codeHash = sha256(code);
    const used = await this.repository.consumeCode(codeHash);
    if (!used) throw invalidGrant('The authorization code is unknown');
    const bound = used.code;
    if (!used.fresh) {
      // RFC 6749 section 4.1.2: tokens issued on a replayed code should be revoked, since the code may be in an
      // attacker's hands. Only the client the code was issued to, authenticated (a confidential client's secret
      // was checked before this) and holding the code's PKCE verifier, ends the grant: anyone else who merely
      // saw the code must not be able to end the user's authorization.
      const genuine =
        bound.clientPk === client.id && isValidVerifier(verifier) && verifierMatches(verifier, bound.codeChallenge);
      if (genuine && bound.grantId) {
        await this.repository.revokeGrant(bound.grantId, 'code_reuse');
        await this.invalidate(`grant:${bound.grantId}`);
        throw invalidGrant('The authorization code was already used; the tokens it gave were revoked');
      }
      throw invalidGrant('The authorization code was already used');
    }
    if (bound.clientPk !== client.id) throw invalidGrant('The authorization code was issued to another client');
    if (bound.expired) throw invalidGrant('The authorization code has expired');
    if (redirectUri === undefined || redirectUri !== bound.redirectUri)
      throw invalidGrant('redirect_uri differs from the one of the authorization request');
    if (verifier === undefined || verifier === '')
      throw new OAuthException(OAuthErrorCode.INVALID_REQUEST, 'code_verifier is required (PKCE)');
    if (!isValidVerifier(verifier)) throw invalidGrant('code_verifier must be 43-128 unreserved characters');
    if (!verifierMatches(verifier, bound.codeChallenge))
      throw invalidGrant('code_verifier does not match the code_challenge');
    const { access, refresh, hashes } = this.newPair(client);
    const grantId = await this.repository.startGrant(codeHash, bound, hashes);
    if (!grantId) throw invalidGrant('The user revoked this app’s access');
    await this.clients.markUsed(client);
    return this.withIdToken(
      tokenResponse(access, refresh, client.accessTokenTtlSeconds, bound.scopes),
      client,
      bound.userId,
      bound.nonce,
    );
  }

  /** The refresh_token grant (RFC 6749 section 6): rotation, reuse detection, no scope escalation. */
  async refresh(client: OAuthClient, refreshToken: string, scope: string | undefined): Promise<TokenResponse> {
    if (!refreshToken) throw new OAuthException(OAuthErrorCode.INVALID_REQUEST, 'refresh_token is required');
    const asked = [...new Set((scope ?? '').split(' ').filter(Boolean))] as OAuthScope[];
    const requested = asked.length ? asked : null;
    const { access, refresh, hashes } = this.newPair(client);
    const outcome = await this.repository.rotateRefresh(
      sha256(refreshToken),
      client.id,
      requested,
      hashes,
      REFRESH_RETRY_GRACE_SECONDS,
    );
    if (outcome.status === 'scope_exceeded') {
      // Refused before anything changed: the refresh token stays usable.
      const beyond = requested!.filter((item) => !outcome.granted.includes(item));
      throw new OAuthException(OAuthErrorCode.INVALID_SCOPE, `A refresh may not add scopes: ${beyond.join(' ')}`);
    }
    if (outcome.status === 'reused') {
      await this.repository.revokeGrant(outcome.grantId, 'refresh_reuse');
      await this.invalidate(`grant:${outcome.grantId}`);
      this.logger.warn(`a used refresh token was presented again: grant ${outcome.grantId} revoked`);
      throw invalidGrant('The refresh token was already used; every token of this authorization is revoked');
    }
    if (outcome.status === 'invalid') throw invalidGrant('The refresh token is invalid, expired or revoked');
    // OpenID Connect Core section 12.2: a refresh may carry a new ID token (same iss, sub, aud; no nonce).
    return this.withIdToken(
      tokenResponse(access, refresh, client.accessTokenTtlSeconds, outcome.scopes),
      client,
      outcome.userId,
      null,
    );
  }

  /** OpenID Connect: an authorization holding `openid` gets an ID token beside its tokens. */
  private async withIdToken(
    response: TokenResponse,
    client: OAuthClient,
    userId: string,
    nonce: string | null,
  ): Promise<TokenResponse> {
    const scopes = response.scope.split(' ') as OAuthScope[];
    if (!scopes.includes('openid')) return response;
    const claims = idTokenClaims({
      issuer: this.config.publicUrl,
      clientId: client.clientId,
      user: await this.accounts.me(userId),
      scopes,
      nonce,
      accessToken: response.access_token,
      now: Date.now(),
    });
    return { ...response, id_token: await this.signingKeys.sign(claims) };
  }

  /** RFC 7009: answers the same whether or not the token was known. */
  async revoke(token: string): Promise<void> {
    if (!token || token.length > 200) return;
    const revoked = await this.repository.revokeToken(sha256(token));
    if (revoked) await this.invalidate(`grant:${revoked.grantId}`);
  }

  /**
   * A live access token presented by an app, or null; notes that the app acted for its user (the consent's
   * last use). Both ways an app's token is taken (the gateway and `oauth: true` routes) come through here.
   */
  async authenticate(token: string): Promise<AccessTokenRow | null> {
    const access = await this.resolveAccess(token);
    if (access) this.consents.markUsed(access.userId, access.clientPk);
    return access;
  }

  /** A live access token's meaning, or null. Cached; revocations empty the cache on every instance. */
  private async resolveAccess(token: string): Promise<AccessTokenRow | null> {
    if (!token.startsWith(OAUTH_ACCESS_TOKEN_PREFIX) || token.length !== TOKEN_LENGTH) return null;
    const hash = sha256(token);
    const cached = this.cache.get(hash);
    if (cached !== undefined) return cached && cached.expiresAt.getTime() > Date.now() ? cached : null;
    const row = await this.repository.findLiveToken(hash, 'access');
    this.cache.set(hash, row, row ? Math.min(POSITIVE_TTL_MS, row.expiresAt.getTime() - Date.now()) : NEGATIVE_TTL_MS);
    return row;
  }

  /** RFC 7662 for the client the token was issued to; anything else is simply inactive. */
  async introspect(client: OAuthClient, token: string): Promise<Record<string, unknown>> {
    if (!token || token.length !== TOKEN_LENGTH) return { active: false };
    const kind = token.startsWith(OAUTH_ACCESS_TOKEN_PREFIX)
      ? 'access'
      : token.startsWith(OAUTH_REFRESH_TOKEN_PREFIX)
        ? 'refresh'
        : null;
    const row = kind ? await this.repository.findLiveToken(sha256(token), kind) : null;
    if (!row || row.clientPk !== client.id) return { active: false };
    return {
      active: true,
      scope: row.scopes.join(' '),
      client_id: row.clientId,
      sub: row.userId,
      token_type: kind === 'access' ? 'Bearer' : 'refresh_token',
      exp: Math.floor(row.expiresAt.getTime() / 1000),
      iat: Math.floor(row.issuedAt.getTime() / 1000),
    };
  }

  private newPair(client: OAuthClient): { access: string; refresh: string; hashes: IssuedTokenHashes } {
    const access = randomToken(OAUTH_ACCESS_TOKEN_PREFIX);
    const refresh = randomToken(OAUTH_REFRESH_TOKEN_PREFIX);
    return {
      access,
      refresh,
      hashes: {
        accessHash: sha256(access),
        accessTtlSeconds: client.accessTokenTtlSeconds,
        refreshHash: sha256(refresh),
        refreshTtlSeconds: client.refreshTokenTtlSeconds,
      },
    };
  }

  private invalidate(reason: string): Promise<void> {
    return this.bus.publish(OAUTH_TOKENS_TOPIC, reason);
  }
}

function tokenResponse(access: string, refresh: string, ttl: number, scopes: OAuthScope[]): TokenResponse {
  return {
    access_token: access,
    refresh_token: refresh,
    expires_in: ttl,
    token_type: 'Bearer',
    scope: scopes.join(' '),
  };
}
