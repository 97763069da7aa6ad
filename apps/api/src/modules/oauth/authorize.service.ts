import { Inject, Injectable } from '@nestjs/common';
import {
  ALL_SCOPES,
  type AuthorizationRequestInfo,
  type ConsentLimits,
  IDENTITY_SCOPES,
  NONCE_MAX_LENGTH,
  type OAuthScope,
  redirectHost,
  SCOPE_DESCRIPTIONS,
} from '@switchyard/shared-dto';
import type { AuthorizationParamsDto, ConsentLimitsDto } from '@switchyard/shared-dto/validation';
import { limitsOf } from '../../common/spend-limits';
import { APP_CONFIG } from '../../config/config.module';
import type { AppConfig } from '../../config/config.schema';
import { ClientsService, type OAuthClient } from '../clients';
import { ConsentsService } from '../consents';
import { SponsorService } from '../usage';
import { OAuthTokensService } from './oauth-tokens.service';
import { isS256Challenge } from './pkce';

/** An authorization request that cannot be answered by redirecting: unknown client, bad redirect URI. */
export class AuthorizationPageError extends Error {}

/** An error that goes back to the app on its redirect URI (RFC 6749 section 4.1.2.1). */
export class AuthorizationRedirectError extends Error {
  constructor(
    readonly error:
      'invalid_request' | 'unsupported_response_type' | 'invalid_scope' | 'access_denied' | 'unauthorized_client',
    message: string,
    readonly redirectTo: string,
    /** The app the error would go back to (already checked: known, active, redirect URI registered). */
    readonly client: OAuthClient,
  ) {
    super(message);
  }
}

/** A request that passed every check, ready for the consent decision. */
export interface CheckedAuthorization {
  client: OAuthClient;
  redirectUri: string;
  scopes: OAuthScope[];
  state: string | undefined;
  codeChallenge: string;
  /** OpenID Connect: echoed in the ID token. */
  nonce: string | null;
}

export type AuthorizeOutcome = { kind: 'redirect'; to: string } | { kind: 'consent' };

/**
 * `GET /oauth2/authorize` and the consent page's decision (RFC 6749 section 4.1, RFC 7636, RFC 9207). The client
 * and redirect URI are checked first: until both are known to be good nothing is redirected anywhere.
 */
@Injectable()
export class AuthorizeService {
  constructor(
    private readonly sponsor: SponsorService,
    private readonly clients: ClientsService,
    private readonly consents: ConsentsService,
    private readonly tokens: OAuthTokensService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  get issuer(): string {
    return this.config.publicUrl;
  }

  /** Checks a request as the authorize endpoint receives it; throws a page error or a redirect error. */
  async check(params: Partial<AuthorizationParamsDto>): Promise<CheckedAuthorization> {
    const client = typeof params.client_id === 'string' ? await this.clients.findActive(params.client_id) : null;
    if (!client)
      throw new AuthorizationPageError('This app is unknown or no longer active (client_id). Nothing was sent to it.');
    let redirectUri = params.redirect_uri;
    if (redirectUri === undefined || redirectUri === '') {
      // OAuth 2.1 allows leaving it out only when the client registered exactly one.
      if (client.redirectUris.length !== 1)
        throw new AuthorizationPageError('redirect_uri is required: this app registered several.');
      redirectUri = client.redirectUris[0];
    } else if (!client.redirectUris.includes(redirectUri)) {
      throw new AuthorizationPageError(
        'redirect_uri is not one this app registered (they must match exactly). Nothing was sent to it.',
      );
    }
    const fail = (error: AuthorizationRedirectError['error'], message: string) =>
      new AuthorizationRedirectError(
        error,
        message,
        this.errorRedirect(redirectUri, error, message, params.state),
        client,
      );
    if (params.response_type !== 'code') throw fail('unsupported_response_type', 'response_type must be code');
    if (!params.code_challenge) throw fail('invalid_request', 'code_challenge is required (PKCE with S256)');
    if (params.code_challenge_method !== 'S256')
      throw fail('invalid_request', 'code_challenge_method must be S256 (plain is not accepted)');
    if (!isS256Challenge(params.code_challenge))
      throw fail(
        'invalid_request',
        'code_challenge must be the base64url SHA-256 of the code_verifier (43 characters)',
      );
    const asked =
      params.scope === undefined || params.scope.trim() === ''
        ? client.scopes
        : [...new Set(params.scope.trim().split(/ +/))];
    // OpenID Connect's identity scopes are open to every app; the others only as the app registered them.
    const unknown = asked.filter(
      (scope) =>
        !(ALL_SCOPES as readonly string[]).includes(scope) ||
        !((IDENTITY_SCOPES as readonly string[]).includes(scope) || client.scopes.includes(scope as OAuthScope)),
    );
    if (unknown.length) throw fail('invalid_scope', `This app may not ask for: ${unknown.join(' ')}`);
    if (params.nonce !== undefined && (params.nonce === '' || params.nonce.length > NONCE_MAX_LENGTH))
      throw fail('invalid_request', `nonce must be 1-${NONCE_MAX_LENGTH} characters`);
    return {
      client,
      redirectUri,
      scopes: (asked as OAuthScope[]).sort(),
      state: params.state,
      codeChallenge: params.code_challenge,
      nonce: params.nonce ?? null,
    };
  }

  /**
   * For a signed-in user: a code right away (the consent still recorded or refreshed) when the app is a trusted
   * first-party app, or when this user already granted these scopes and an earlier consent may be reused for
   * this app (`reusesConsent`); otherwise the consent page.
   */
  async authorize(userId: string, request: CheckedAuthorization): Promise<AuthorizeOutcome> {
    const consent = await this.consents.find(userId, request.client.id);
    // A trusted first-party app is the operator's own: its users take its markup as they take its scopes.
    if (request.client.trusted)
      return { kind: 'redirect', to: await this.approve(userId, request, request.client.markupPercent) };
    if (!reusesConsent(request.client, request.redirectUri)) return { kind: 'consent' };
    const covered = consent !== null && request.scopes.every((scope) => consent.scopes.includes(scope));
    if (!covered) return { kind: 'consent' };
    // A raised markup is never taken silently: the user sees the new rate and approves again (docs/earnings.md).
    if (consent.markupPercent < request.client.markupPercent) return { kind: 'consent' };
    return { kind: 'redirect', to: await this.approve(userId, request, consent.markupPercent) };
  }

  /** What the consent page shows. */
  async describe(userId: string, request: CheckedAuthorization): Promise<AuthorizationRequestInfo> {
    const consent = await this.consents.find(userId, request.client.id);
    return {
      client: {
        clientId: request.client.clientId,
        clientName: request.client.clientName,
        redirectHost: redirectHost(request.redirectUri),
        redirectUri: request.redirectUri,
      },
      scopes: request.scopes.map((scope) => ({ scope, description: SCOPE_DESCRIPTIONS[scope] })),
      alreadyGranted: consent?.scopes ?? [],
      limits: consent ? limitsOf(consent) : visitorDefaults(request.client),
      markupPercent: request.client.markupPercent,
      agreedMarkupPercent: consent ? Math.min(consent.markupPercent, request.client.markupPercent) : null,
      // A user who approved before the pool opened has no allowance: the app pays nothing of theirs.
      sponsoredUpTo: await this.sponsor.offer(request.client.clientId, userId, consent !== null),
    };
  }

  /**
   * The user's answer on the consent page: where the browser goes next. `markupPercent` is the rate the page showed
   * the user; the consent keeps the lower of it and the app's rate now (a raise between the page and the click is
   * not agreed to; a page that sent none agreed to no markup).
   */
  async decide(
    userId: string,
    request: CheckedAuthorization,
    approve: boolean,
    limits?: ConsentLimitsDto,
    markupPercent?: number,
  ): Promise<string> {
    if (!approve)
      return this.errorRedirect(request.redirectUri, 'access_denied', 'The user denied access', request.state);
    return this.approve(userId, request, Math.min(markupPercent ?? 0, request.client.markupPercent), limits);
  }

  private async approve(
    userId: string,
    request: CheckedAuthorization,
    markupPercent: number,
    limits?: ConsentLimitsDto,
  ): Promise<string> {
    // A first consent without caps of the user's own starts with the app's visitor cap (space apps: a small one).
    const defaults = limits ? null : visitorDefaults(request.client);
    const first = defaults !== null && (await this.consents.find(userId, request.client.id)) === null;
    await this.consents.grant(
      userId,
      request.client.id,
      request.scopes,
      markupPercent,
      limits ?? (first ? defaults : undefined),
    );
    const code = await this.tokens.issueCode({
      clientPk: request.client.id,
      userId,
      redirectUri: request.redirectUri,
      scopes: request.scopes,
      codeChallenge: request.codeChallenge,
      nonce: request.nonce,
    });
    return withParams(request.redirectUri, { code, state: request.state, iss: this.issuer });
  }

  private errorRedirect(redirectUri: string, error: string, description: string, state: string | undefined): string {
    return withParams(redirectUri, { error, error_description: description, state, iss: this.issuer });
  }
}

/** The caps a new user's consent with this app starts with (a space app's small visitor cap), or null. */
function visitorDefaults(client: OAuthClient): ConsentLimits | null {
  if (client.visitorMonthlyCapMicros === null) return null;
  return {
    total: null,
    daily: null,
    weekly: null,
    monthly: Number(client.visitorMonthlyCapMicros) / 1e6,
    perRequest: null,
  };
}

/**
 * Whether a user's earlier consent may authorize this app again without asking. RFC 8252 section 8.6: unless the
 * client's identity can be assured, an authorization request is treated as if nothing had been approved before.
 * A confidential client proves itself with its secret at the token endpoint, and an owner-registered app whose
 * redirect URI is https can only receive the code on its own site. A public client redirecting to loopback or to
 * a private-use scheme can be imitated by any program on the device, and a dynamic registration has no
 * accountable owner, so those are asked every time.
 */
export function reusesConsent(client: OAuthClient, redirectUri: string): boolean {
  if (client.clientType === 'CONFIDENTIAL') return true;
  return client.registration === 'owner' && redirectUri.startsWith('https://');
}

/** The redirect URI with the response parameters added to its query (its own query kept, RFC 6749 3.1.2). */
function withParams(redirectUri: string, params: Record<string, string | undefined>): string {
  const url = new URL(redirectUri);
  for (const [name, value] of Object.entries(params)) if (value !== undefined) url.searchParams.set(name, value);
  return url.toString();
}
