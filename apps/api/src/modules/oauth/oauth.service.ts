import { Inject, Injectable } from '@nestjs/common';
import {
  ALL_SCOPES,
  CLIENT_NAME_RANGE,
  MAX_REDIRECT_URIS,
  OAUTH_SCOPES,
  type OAuthScope,
  redirectUriProblem,
  reservedNameProblem,
  type TokenResponse,
} from '@switchyard/shared-dto';
import { APP_CONFIG } from '../../config/config.module';
import type { AppConfig } from '../../config/config.schema';
import { ClientsService, type OAuthClient } from '../clients';
import { OAuthTokensService } from './oauth-tokens.service';
import { OAuthErrorCode, OAuthException } from './oauth.exception';
import { param, presentedClient } from './token-request';

/** RFC 7591 section 3.2.1's answer. */
export interface RegisteredClient {
  client_id: string;
  client_id_issued_at: number;
  client_name: string;
  redirect_uris: string[];
  grant_types: string[];
  response_types: string[];
  token_endpoint_auth_method: 'none';
  scope: string;
}

const GRANT_TYPES = ['authorization_code', 'refresh_token'];

/** The OAuth protocol endpoints other than authorize: token, revoke, introspect, register, metadata. */
@Injectable()
export class OAuthService {
  constructor(
    private readonly clients: ClientsService,
    private readonly tokens: OAuthTokensService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** POST /oauth2/token with the interface's JSON body or RFC 6749's form body. */
  async token(body: Record<string, unknown> | undefined, authorization: string | undefined): Promise<TokenResponse> {
    const grantType = param(body, 'grant_type');
    if (!grantType) throw new OAuthException(OAuthErrorCode.INVALID_REQUEST, 'grant_type is required');
    if (!GRANT_TYPES.includes(grantType))
      throw new OAuthException(OAuthErrorCode.UNSUPPORTED_GRANT_TYPE, `grant_type must be ${GRANT_TYPES.join(' or ')}`);
    const client = await this.authenticateClient(body, authorization);
    if (grantType === 'authorization_code')
      return this.tokens.exchangeCode(
        client,
        param(body, 'code') ?? '',
        param(body, 'code_verifier'),
        param(body, 'redirect_uri'),
      );
    return this.tokens.refresh(client, param(body, 'refresh_token') ?? '', param(body, 'scope'));
  }

  /** RFC 7009. A client that authenticates must be itself; a token is revoked by whoever holds it. */
  async revoke(
    body: Record<string, unknown> | undefined,
    query: Record<string, unknown>,
    authorization: string | undefined,
  ): Promise<void> {
    const presented = presentedClient(body, authorization);
    if (presented.clientId !== undefined || presented.secret !== undefined)
      await this.authenticateClient(body, authorization);
    const token = param(body, 'token') ?? param(query, 'token');
    if (!token) throw new OAuthException(OAuthErrorCode.INVALID_REQUEST, 'token is required');
    await this.tokens.revoke(token);
  }

  /** RFC 7662, for confidential clients (resource servers of the app maker). */
  async introspect(
    body: Record<string, unknown> | undefined,
    authorization: string | undefined,
  ): Promise<Record<string, unknown>> {
    const client = await this.authenticateClient(body, authorization);
    if (client.clientType !== 'CONFIDENTIAL')
      throw new OAuthException(OAuthErrorCode.INVALID_CLIENT, 'Only confidential clients may introspect tokens');
    const token = param(body, 'token');
    if (!token) throw new OAuthException(OAuthErrorCode.INVALID_REQUEST, 'token is required');
    return this.tokens.introspect(client, token);
  }

  /** RFC 7591 for agent hosts (MCP clients): public PKCE clients only. */
  async register(body: Record<string, unknown> | undefined): Promise<RegisteredClient> {
    if (!this.config.oauthDynamicRegistration)
      throw new OAuthException(
        OAuthErrorCode.ACCESS_DENIED,
        'Dynamic client registration is turned off here; register the app in the dashboard',
      );
    const metadata = body ?? {};
    const redirectUris = metadata.redirect_uris;
    if (!Array.isArray(redirectUris) || !redirectUris.length || redirectUris.length > MAX_REDIRECT_URIS)
      throw new OAuthException(
        OAuthErrorCode.INVALID_REDIRECT_URI,
        `redirect_uris must be an array of 1-${MAX_REDIRECT_URIS} URIs`,
      );
    for (const uri of redirectUris) {
      const problem = redirectUriProblem(uri as string);
      if (problem)
        throw new OAuthException(
          OAuthErrorCode.INVALID_REDIRECT_URI,
          `redirect_uris: "${String(uri).slice(0, 100)}" ${problem}`,
        );
    }
    const method = metadata.token_endpoint_auth_method ?? 'none';
    if (method !== 'none')
      throw new OAuthException(
        OAuthErrorCode.INVALID_CLIENT_METADATA,
        'Only public clients (token_endpoint_auth_method "none", with PKCE) may register themselves',
      );
    const grantTypes = metadata.grant_types ?? GRANT_TYPES;
    if (!Array.isArray(grantTypes) || grantTypes.some((grant) => !GRANT_TYPES.includes(grant as string)))
      throw new OAuthException(
        OAuthErrorCode.INVALID_CLIENT_METADATA,
        `grant_types may hold ${GRANT_TYPES.join(', ')}`,
      );
    const responseTypes = metadata.response_types ?? ['code'];
    if (!Array.isArray(responseTypes) || responseTypes.some((type) => type !== 'code'))
      throw new OAuthException(OAuthErrorCode.INVALID_CLIENT_METADATA, 'response_types may hold only code');
    const scope = metadata.scope ?? 'api:access';
    const scopes = typeof scope === 'string' ? [...new Set(scope.split(' ').filter(Boolean))] : null;
    if (!scopes?.length || scopes.some((item) => !(ALL_SCOPES as readonly string[]).includes(item)))
      throw new OAuthException(
        OAuthErrorCode.INVALID_CLIENT_METADATA,
        `scope is a space-separated list of ${ALL_SCOPES.join(', ')}`,
      );
    const name = metadata.client_name ?? 'Unnamed agent';
    if (
      typeof name !== 'string' ||
      name.trim().length < CLIENT_NAME_RANGE[0] ||
      name.trim().length > CLIENT_NAME_RANGE[1]
    )
      throw new OAuthException(
        OAuthErrorCode.INVALID_CLIENT_METADATA,
        `client_name must be ${CLIENT_NAME_RANGE[0]}-${CLIENT_NAME_RANGE[1]} characters`,
      );
    const reserved = reservedNameProblem(name);
    if (reserved) throw new OAuthException(OAuthErrorCode.INVALID_CLIENT_METADATA, `client_name ${reserved}`);
    // The identity scopes need no registration (every app may ask for them); only the others are kept.
    const registrable = scopes.filter((item) => (OAUTH_SCOPES as readonly string[]).includes(item));
    const client = await this.clients.registerDynamic({
      clientName: name.trim(),
      redirectUris: redirectUris as string[],
      scopes: registrable as OAuthScope[],
    });
    return {
      client_id: client.clientId,
      client_id_issued_at: Math.floor(client.createdAt.getTime() / 1000),
      client_name: client.clientName,
      redirect_uris: client.redirectUris,
      grant_types: grantTypes as string[],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      scope: scopes.join(' '),
    };
  }

  /**
   * RFC 8414 metadata, which is also OpenID Connect Discovery 1.0's provider metadata (the same document at both
   * well-known addresses); the issuer is PUBLIC_URL (docs/decisions.md#resource-shapes, Discovery).
   */
  metadata(): Record<string, unknown> {
    const base = this.config.publicUrl;
    return {
      issuer: base,
      authorization_endpoint: `${base}/oauth2/authorize`,
      token_endpoint: `${base}/oauth2/token`,
      revocation_endpoint: `${base}/oauth2/revoke`,
      introspection_endpoint: `${base}/oauth2/introspect`,
      userinfo_endpoint: `${base}/oauth2/userinfo`,
      jwks_uri: `${base}/oauth2/jwks`,
      ...(this.config.oauthDynamicRegistration ? { registration_endpoint: `${base}/oauth2/register` } : {}),
      scopes_supported: [...ALL_SCOPES],
      subject_types_supported: ['public'],
      id_token_signing_alg_values_supported: ['RS256'],
      claims_supported: [
        'sub',
        'iss',
        'aud',
        'exp',
        'iat',
        'nonce',
        'at_hash',
        'name',
        'preferred_username',
        'email',
        'email_verified',
      ],
      claims_parameter_supported: false,
      request_parameter_supported: false,
      request_uri_parameter_supported: false,
      response_types_supported: ['code'],
      response_modes_supported: ['query'],
      grant_types_supported: GRANT_TYPES,
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: ['none', 'client_secret_basic', 'client_secret_post'],
      revocation_endpoint_auth_methods_supported: ['none', 'client_secret_basic', 'client_secret_post'],
      introspection_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
      authorization_response_iss_parameter_supported: true,
      service_documentation: `${base}/docs`,
    };
  }

  /** RFC 6749 section 2.3: public clients name themselves; confidential ones prove it. */
  private async authenticateClient(
    body: Record<string, unknown> | undefined,
    authorization: string | undefined,
  ): Promise<OAuthClient> {
    const presented = presentedClient(body, authorization);
    const challenge = presented.basic ? { 'WWW-Authenticate': 'Basic realm="oauth2"' } : undefined;
    const fail = (message: string) => new OAuthException(OAuthErrorCode.INVALID_CLIENT, message, challenge);
    if (!presented.clientId) throw fail('client_id is required');
    const client = await this.clients.findActive(presented.clientId);
    if (!client) throw fail('Unknown or deactivated client');
    if (client.clientType === 'CONFIDENTIAL') {
      if (!presented.secret)
        throw fail('This client must authenticate with its secret (client_secret_basic or client_secret_post)');
      if (!this.clients.secretMatches(client, presented.secret)) throw fail('Wrong client secret');
    } else if (presented.secret) {
      throw fail('A public client has no secret; send client_id only, with PKCE');
    }
    return client;
  }
}
