import { Injectable, OnModuleInit } from '@nestjs/common';
import { OAUTH_CLIENT_ID_HEADER } from '@switchyard/shared-dto';
import type { IncomingMessage } from 'node:http';
import { checkClientIdHeader } from '../../common/auth/client-id-header.guard';
import { OAUTH_ACCESS_TOKEN_PREFIX } from '../../common/auth/principal';
import { CommonErrorCode } from '../../common/errors/app.exception';
import {
  type Caller,
  type CredentialStrategy,
  CredentialRegistry,
  GatewayErrorCode,
  GatewayException,
  type PrefixKind,
} from '../proxy';
import { OAuthTokensService } from './oauth-tokens.service';

/**
 * OAuth access tokens on the gateway (docs/decisions.md#answers-and-errors): on /v1 with the client-id header required, on
 * /oauth2/v1 with it optional (the earlier contract); never on /apikey/v1. AI calls need scope api:access.
 */
@Injectable()
export class OAuthAccessStrategy implements CredentialStrategy, OnModuleInit {
  readonly kind = 'oauth' as const;
  readonly prefixes: PrefixKind[] = ['shared', 'oauth'];

  constructor(
    private readonly tokens: OAuthTokensService,
    private readonly registry: CredentialRegistry,
  ) {}

  onModuleInit(): void {
    this.registry.register(this);
  }

  claims(token: string): boolean {
    return token.startsWith(OAUTH_ACCESS_TOKEN_PREFIX);
  }

  async resolve(token: string, req: IncomingMessage, prefix: PrefixKind): Promise<Caller> {
    const access = await this.tokens.authenticate(token);
    if (!access)
      throw new GatewayException(
        GatewayErrorCode.INVALID_TOKEN,
        'The access token is invalid, expired or revoked: refresh it once, then sign in again',
      );
    checkClientIdHeader(req.headers[OAUTH_CLIENT_ID_HEADER], access.clientId, prefix === 'oauth', (code, message) =>
      code === CommonErrorCode.INVALID_REQUEST
        ? new GatewayException(GatewayErrorCode.INVALID_REQUEST, message, { param: OAUTH_CLIENT_ID_HEADER })
        : new GatewayException(GatewayErrorCode.INVALID_TOKEN, message),
    );
    if (!access.scopes.includes('api:access'))
      throw new GatewayException(GatewayErrorCode.INSUFFICIENT_SCOPE, 'The access token lacks the scope api:access', {
        headers: { 'WWW-Authenticate': 'Bearer error="insufficient_scope", scope="api:access"' },
      });
    return {
      kind: 'oauth',
      userId: access.userId,
      apiKeyId: null,
      oauthClientId: access.clientId,
      credentialName: access.clientName,
      scopes: access.scopes,
      rateLimitRpm: access.rateLimitRpm,
      markupPercent: access.markupPercent,
      // Each user of an app gets the app's rate: one busy user cannot use up another's.
      rateLimitSubject: `app:${access.clientId}:${access.userId}`,
    };
  }
}
