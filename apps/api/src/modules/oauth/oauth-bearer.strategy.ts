import { Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import { Strategy } from 'passport-http-bearer';
import { OAUTH_BEARER, type OAuthPrincipal } from '../../common/auth/principal';
import { OAuthTokensService } from './oauth-tokens.service';

/** passport-http-bearer over OAuth access tokens, for the Nest routes that say `@Access({ oauth: true })`. */
@Injectable()
export class OAuthBearerStrategy extends PassportStrategy(Strategy, OAUTH_BEARER) {
  constructor(private readonly tokens: OAuthTokensService) {
    super();
  }

  async validate(token: string): Promise<OAuthPrincipal | false> {
    const access = await this.tokens.authenticate(token);
    if (!access) return false;
    return { kind: 'oauth', userId: access.userId, clientId: access.clientId, clientName: access.clientName, scopes: access.scopes, grantId: access.grantId };
  }
}
