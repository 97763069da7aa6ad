import { Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import { Strategy } from 'passport-http-bearer';
import type { OAuthPrincipal } from '../../common/auth/principal';
import { AppTokensService } from './app-tokens.service';

export const APP_TOKEN_BEARER = 'oauth-bearer';

/**
 * passport-http-bearer over apps' OAuth access tokens (`Authorization: Bearer sya_…`) on routes that say
 * `@Access({ oauth: true })`. Parsing the header is passport's, as for sessions; the check is the OAuth module's.
 */
@Injectable()
export class AppTokenBearerStrategy extends PassportStrategy(Strategy, APP_TOKEN_BEARER) {
  constructor(private readonly appTokens: AppTokensService) {
    super();
  }

  async validate(token: string): Promise<OAuthPrincipal | false> {
    return (await this.appTokens.verify(token)) ?? false;
  }
}
