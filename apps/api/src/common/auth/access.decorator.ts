import { applyDecorators, createParamDecorator, ExecutionContext, SetMetadata } from '@nestjs/common';
import { ApiBearerAuth, ApiCookieAuth, ApiForbiddenResponse, ApiUnauthorizedResponse } from '@nestjs/swagger';
import type { UserRole } from '@switchyard/shared-dto';
import type { Request } from 'express';
import type { SessionPrincipal } from './principal';

export const ACCESS_KEY = 'switchyard:access';

/** What a route needs. Authentication is global: a route without @Access is for signed-in users. */
export type AccessRule = { public: true } | { public?: false; roles?: UserRole[] };

/**
 * One decorator per route for access and its OpenAPI security note:
 * `@Access({ public: true })`, `@Access()` (any signed-in user), `@Access({ roles: ['admin'] })`.
 */
export function Access(rule: AccessRule = {}) {
  if (rule.public) return SetMetadata(ACCESS_KEY, rule);
  return applyDecorators(
    SetMetadata(ACCESS_KEY, rule),
    ApiBearerAuth('session'),
    ApiCookieAuth('session-cookie'),
    ApiUnauthorizedResponse({ description: 'No session, or an expired or forged one (UNAUTHENTICATED, SESSION_INVALID)' }),
    ...(rule.roles ? [ApiForbiddenResponse({ description: `Needs role ${rule.roles.join(' or ')} (FORBIDDEN)` })] : []),
  );
}

/** The signed-in caller. Only reads what the guard attached; its absence is a server bug, not a 401. */
export const CurrentUser = createParamDecorator((_: unknown, ctx: ExecutionContext): SessionPrincipal => {
  const principal = ctx.switchToHttp().getRequest<Request>().principal;
  if (!principal) throw new Error('CurrentUser used on a route without an authenticated principal');
  return principal;
});
