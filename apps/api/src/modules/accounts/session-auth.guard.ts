import { ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AuthGuard } from '@nestjs/passport';
import type { Request } from 'express';
import { CSRF_HEADER, SESSION_COOKIE } from '@switchyard/shared-dto';
import { ACCESS_KEY, AccessRule } from '../../common/auth/access.decorator';
import { OAUTH_ACCESS_TOKEN_PREFIX, type Principal, type SessionPrincipal } from '../../common/auth/principal';
import { AccountsErrorCode, AccountsException } from './accounts.exception';
import { AccountsService, csrfMatches } from './accounts.service';
import { APP_TOKEN_BEARER } from './app-token-bearer.strategy';
import { SESSION_BEARER } from './session-bearer.strategy';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Passport over apps' OAuth access tokens (app-token-bearer.strategy.ts; the OAuth module checks them). */
class OAuthBearerGuard extends AuthGuard(APP_TOKEN_BEARER) {
  override handleRequest<T>(error: unknown, user: T | false): T {
    if (error || !user)
      throw new AccountsException(AccountsErrorCode.TOKEN_INVALID, 'The access token is invalid, expired or revoked');
    return user;
  }
}

/**
 * The global authentication guard of Nest routes: a route is for signed-in users unless it says
 * `@Access({ public: true })`, so a forgotten declaration fails closed. A session arrives as
 * `Authorization: Bearer` (through passport-http-bearer) or as the dashboard's HttpOnly cookie; a cookie-carried
 * session must also present the session's CSRF token in a header on every write. Routes that say `oauth: true`
 * also take an app's OAuth access token (passport-http-bearer again, checked by the OAuth module's verifier
 * through AppTokensService).
 */
@Injectable()
export class SessionAuthGuard extends AuthGuard(SESSION_BEARER) {
  private readonly oauthBearer = new OAuthBearerGuard();

  constructor(
    private readonly reflector: Reflector,
    private readonly accounts: AccountsService,
  ) {
    super();
  }

  override async canActivate(context: ExecutionContext): Promise<boolean> {
    const rule =
      this.reflector.getAllAndOverride<AccessRule | undefined>(ACCESS_KEY, [
        context.getHandler(),
        context.getClass(),
      ]) ?? {};
    const req = context.switchToHttp().getRequest<Request>();
    // Cross-site writes never get here: the Origin rule runs before the body parsers (common/http/same-origin.ts).
    const principal = await this.authenticate(context, req, rule).catch((error) => {
      if (rule.public) return undefined; // a stale credential must not lock anyone out of sign-in
      throw error;
    });
    if (principal) req.principal = principal;
    if (rule.public) return true;
    if (!principal) throw new AccountsException(AccountsErrorCode.UNAUTHENTICATED, 'Sign in or send a bearer token');
    if (rule.roles && (principal.kind !== 'session' || !rule.roles.includes(principal.role)))
      throw new AccountsException(AccountsErrorCode.FORBIDDEN, `This needs the ${rule.roles.join(' or ')} role`);
    return true;
  }

  override handleRequest<T = SessionPrincipal>(error: unknown, user: T | false): T {
    if (error || !user)
      throw new AccountsException(AccountsErrorCode.SESSION_INVALID, 'The session is invalid or has expired');
    return user;
  }

  private async authenticate(
    context: ExecutionContext,
    req: Request,
    rule: AccessRule,
  ): Promise<Principal | undefined> {
    if (req.headers.authorization !== undefined) {
      const match = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization);
      if (!match)
        throw new AccountsException(
          AccountsErrorCode.SESSION_INVALID,
          'The Authorization header must be "Bearer <token>"',
        );
      if (match[1].startsWith(OAUTH_ACCESS_TOKEN_PREFIX)) {
        if (rule.public || !rule.oauth)
          throw new AccountsException(
            AccountsErrorCode.SESSION_INVALID,
            'This endpoint takes a dashboard session, not an app’s access token',
          );
        await this.oauthBearer.canActivate(context);
        return req.user as Principal;
      }
      await super.canActivate(context);
      return req.user as SessionPrincipal;
    }
    const cookie = (req.cookies as Record<string, string> | undefined)?.[SESSION_COOKIE];
    if (!cookie) return undefined;
    const principal = await this.accounts.resolveSession(cookie, 'cookie');
    if (!principal)
      throw new AccountsException(AccountsErrorCode.SESSION_INVALID, 'The session is invalid or has expired');
    if (!SAFE_METHODS.has(req.method) && !csrfMatches(cookie, req.header(CSRF_HEADER)))
      throw new AccountsException(AccountsErrorCode.CSRF_INVALID, `Missing or wrong ${CSRF_HEADER} header`);
    return principal;
  }
}
