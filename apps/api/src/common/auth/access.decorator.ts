import { applyDecorators, createParamDecorator, ExecutionContext, SetMetadata } from '@nestjs/common';
import { ApiBearerAuth, ApiCookieAuth, ApiForbiddenResponse, ApiUnauthorizedResponse } from '@nestjs/swagger';
import type { UserRole } from '@switchyard/shared-dto';
import type { Request } from 'express';
import type { Principal } from './principal';

export const ACCESS_KEY = 'switchyard:access';

/** What a route needs. Authentication is global: a route without @Access is for signed-in users. */
export type AccessRule = { public: true } | { public?: false; roles?: UserRole[]; oauth?: boolean };

/**
 * One decorator per route for access and its OpenAPI security note:
 * `@Access({ public: true })`, `@Access()` (any signed-in user), `@Access({ roles: ['admin'] })`, and
 * `@Access({ oauth: true })` (a signed-in user, or an app's OAuth access token acting for one; pair it with the
 * scope and client-id guards).
 */
export function Access(rule: AccessRule = {}) {
  if (rule.public) return SetMetadata(ACCESS_KEY, rule);
  return applyDecorators(
    SetMetadata(ACCESS_KEY, rule),
    ApiBearerAuth('session'),
    ApiCookieAuth('session-cookie'),
    ...(rule.oauth ? [ApiBearerAuth('oauth')] : []),
    ApiUnauthorizedResponse({
      description: 'No session, or an expired or forged one (UNAUTHENTICATED, SESSION_INVALID)',
    }),
    ...(rule.roles ? [ApiForbiddenResponse({ description: `Needs role ${rule.roles.join(' or ')} (FORBIDDEN)` })] : []),
  );
}

/**
 * The signed-in caller. Only reads what the guard attached; its absence is a server bug, not a 401. A session
 * unless the route says `oauth: true`, where it may be an OAuthPrincipal.
 */
export const CurrentUser = createParamDecorator((_: unknown, ctx: ExecutionContext): Principal => {
  const principal = ctx.switchToHttp().getRequest<Request>().principal;
  if (!principal) throw new Error('CurrentUser used on a route without an authenticated principal');
  return principal;
});
