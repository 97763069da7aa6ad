import { applyDecorators, CanActivate, ExecutionContext, Injectable, SetMetadata, UseGuards } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ApiForbiddenResponse } from '@nestjs/swagger';
import type { OAuthScope } from '@switchyard/shared-dto';
import type { Request } from 'express';
import { CommonErrorCode, CommonException } from '../errors/app.exception';

const SCOPES_KEY = 'switchyard:scopes';
const ANY_SCOPE_KEY = 'switchyard:any-scope';

/**
 * An app's access token must carry every scope named (RFC 6750 section 3.1: 403 insufficient_scope). A user's
 * own session acts with every scope, so it passes. Use on routes that say `@Access({ oauth: true })`.
 */
@Injectable()
export class ScopeGuard implements CanActivate {
  constructor(private readonly reflector: Reflector) {}

  canActivate(context: ExecutionContext): boolean {
    const required =
      this.reflector.getAllAndOverride<OAuthScope[] | undefined>(SCOPES_KEY, [
        context.getHandler(),
        context.getClass(),
      ]) ?? [];
    const anyOf = this.reflector.getAllAndOverride<OAuthScope[] | undefined>(ANY_SCOPE_KEY, [
      context.getHandler(),
      context.getClass(),
    ]);
    const principal = context.switchToHttp().getRequest<Request>().principal;
    if (principal?.kind !== 'oauth') return true;
    if (anyOf && !anyOf.some((scope) => principal.scopes.includes(scope)))
      throw new CommonException(
        CommonErrorCode.INSUFFICIENT_SCOPE,
        `The access token needs one of the scopes ${anyOf.join(', ')}`,
        { headers: { 'WWW-Authenticate': `Bearer error="insufficient_scope", scope="${anyOf.join(' ')}"` } },
      );
    const missing = required.filter((scope) => !principal.scopes.includes(scope));
    if (missing.length)
      throw new CommonException(
        CommonErrorCode.INSUFFICIENT_SCOPE,
        `The access token lacks the scope ${missing.join(' ')}`,
        {
          headers: { 'WWW-Authenticate': `Bearer error="insufficient_scope", scope="${required.join(' ')}"` },
        },
      );
    return true;
  }
}

export function RequireScopes(...scopes: OAuthScope[]) {
  return applyDecorators(
    SetMetadata(SCOPES_KEY, scopes),
    UseGuards(ScopeGuard),
    ApiForbiddenResponse({ description: `An app's token needs scope ${scopes.join(' ')} (INSUFFICIENT_SCOPE)` }),
  );
}

/** An app's access token must carry at least one of the scopes named (userinfo: profile:read or openid). */
export function RequireAnyScope(...scopes: OAuthScope[]) {
  return applyDecorators(
    SetMetadata(ANY_SCOPE_KEY, scopes),
    UseGuards(ScopeGuard),
    ApiForbiddenResponse({
      description: `An app's token needs one of the scopes ${scopes.join(', ')} (INSUFFICIENT_SCOPE)`,
    }),
  );
}
