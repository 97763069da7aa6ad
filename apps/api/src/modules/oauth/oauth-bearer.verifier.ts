import { Injectable, OnModuleInit } from '@nestjs/common';
import type { OAuthPrincipal } from '../../common/auth/principal';
import { AppTokensService, type AppTokenVerifier } from '../accounts';
import { OAuthTokensService } from './oauth-tokens.service';

/**
 * OAuth access tokens on the Nest routes that say `@Access({ oauth: true })`: the accounts module's global guard
 * parses the bearer header and asks this verifier, which it gets handed at start-up (it cannot import this module).
 */
@Injectable()
export class OAuthBearerVerifier implements AppTokenVerifier, OnModuleInit {
  constructor(
    private readonly tokens: OAuthTokensService,
    private readonly appTokens: AppTokensService,
  ) {}

  onModuleInit(): void {
    this.appTokens.useVerifier(this);
  }

  async verify(token: string): Promise<OAuthPrincipal | null> {
    const access = await this.tokens.authenticate(token);
    if (!access) return null;
    return {
      kind: 'oauth',
      userId: access.userId,
      clientId: access.clientId,
      clientName: access.clientName,
      scopes: access.scopes,
      grantId: access.grantId,
    };
  }
}
