import { applyDecorators, CanActivate, ExecutionContext, Injectable, SetMetadata, UseGuards } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ApiHeader } from '@nestjs/swagger';
import { OAUTH_CLIENT_ID_HEADER } from '@switchyard/shared-dto';
import type { Request } from 'express';
import { CommonErrorCode, CommonException } from '../errors/app.exception';

const CLIENT_HEADER_KEY = 'switchyard:client-id-header';

/**
 * An app's access token comes with the app's client id in `X-Service-OAuth-Client-Id` (docs/oauth.md,
 * docs/decisions.md#answers-and-errors): missing is 400 invalid_request (unless the route makes it optional), different from
 * the token's client is 401 invalid_token. Sessions and API keys are not apps: the header means nothing to them.
 */
@Injectable()
export class ClientIdHeaderGuard implements CanActivate {
  constructor(private readonly reflector: Reflector) {}

  canActivate(context: ExecutionContext): boolean {
    const rule = this.reflector.getAllAndOverride<{ optional: boolean } | undefined>(CLIENT_HEADER_KEY, [
      context.getHandler(),
      context.getClass(),
    ]);
    const req = context.switchToHttp().getRequest<Request>();
    const principal = req.principal;
    if (!rule || principal?.kind !== 'oauth') return true;
    checkClientIdHeader(
      req.headers[OAUTH_CLIENT_ID_HEADER],
      principal.clientId,
      rule.optional,
      (code, message) =>
        new CommonException(
          code,
          message,
          code === CommonErrorCode.INVALID_TOKEN
            ? { headers: { 'WWW-Authenticate': 'Bearer error="invalid_token"' } }
            : {},
        ),
    );
    return true;
  }
}

/** The rule itself, shared with the gateway (which is not a Nest route): throws what `fail` builds. */
export function checkClientIdHeader(
  header: string | string[] | undefined,
  tokenClientId: string,
  optional: boolean,
  fail: (code: CommonErrorCode.INVALID_REQUEST | CommonErrorCode.INVALID_TOKEN, message: string) => Error,
): void {
  const value = Array.isArray(header) ? header[0] : header;
  if (value === undefined || value === '') {
    if (optional) return;
    throw fail(
      CommonErrorCode.INVALID_REQUEST,
      `Send the app's client id in the ${OAUTH_CLIENT_ID_HEADER} header with its access token`,
    );
  }
  // Compared exactly, as sent: a value that only matches after trimming or other clean-up is not this client's id.
  if (value !== tokenClientId)
    throw fail(
      CommonErrorCode.INVALID_TOKEN,
      `The ${OAUTH_CLIENT_ID_HEADER} header does not match the client the token was issued to`,
    );
}

export function RequireClientIdHeader(options: { optional?: boolean } = {}) {
  return applyDecorators(
    SetMetadata(CLIENT_HEADER_KEY, { optional: options.optional ?? false }),
    UseGuards(ClientIdHeaderGuard),
    ApiHeader({
      name: 'X-Service-OAuth-Client-Id',
      required: false,
      description: `With an app's access token: the app's client id${options.optional ? ' (optional; must match when sent)' : ' (required)'}`,
    }),
  );
}
