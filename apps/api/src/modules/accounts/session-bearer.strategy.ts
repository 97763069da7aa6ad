import { Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import { Strategy } from 'passport-http-bearer';
import type { SessionPrincipal } from '../../common/auth/principal';
import { AccountsService } from './accounts.service';

export const SESSION_BEARER = 'session-bearer';

/** passport-http-bearer over dashboard sessions: `Authorization: Bearer sys_…` on management routes. */
@Injectable()
export class SessionBearerStrategy extends PassportStrategy(Strategy, SESSION_BEARER) {
  constructor(private readonly accounts: AccountsService) {
    super();
  }

  async validate(token: string): Promise<SessionPrincipal | false> {
    return (await this.accounts.resolveSession(token, 'bearer')) ?? false;
  }
}
