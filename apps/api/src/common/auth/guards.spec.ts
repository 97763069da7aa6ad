import 'reflect-metadata';
import { Controller, ExecutionContext, Get } from '@nestjs/common';
import { ModuleRef, Reflector } from '@nestjs/core';
import { GUARDS_METADATA } from '@nestjs/common/constants';
import { AppException } from '../errors/app.exception';
import { ClientIdHeaderGuard, RequireClientIdHeader } from './client-id-header.guard';
import { OwnedResources, Owns, OwnershipGuard } from './ownership.guard';
import type { OAuthPrincipal, Principal, SessionPrincipal } from './principal';
import { RequireScopes, ScopeGuard } from './scope.guard';

const session: SessionPrincipal = {
  kind: 'session',
  userId: 'u1',
  email: 'a@b.co',
  role: 'user',
  sessionId: 's1',
  via: 'bearer',
};
const app = (scopes: OAuthPrincipal['scopes']): OAuthPrincipal => ({
  kind: 'oauth',
  userId: 'u1',
  clientId: 'syc_app',
  clientName: 'App',
  scopes,
  grantId: 'g1',
});

class Documents implements OwnedResources {
  async ownerOf(ref: string) {
    return ref === 'mine' ? 'u1' : ref === 'theirs' ? 'u2' : null;
  }
  notFound() {
    return new AppException('DOCUMENT_NOT_FOUND', 404, 'No such document');
  }
}

@Controller()
class Routes {
  @Get() @RequireScopes('profile:read') profile() {}
  @Get() @RequireClientIdHeader() strict() {}
  @Get() @RequireClientIdHeader({ optional: true }) lenient() {}
  @Get() @Owns(Documents, 'id') owned() {}
}

function contextFor(
  handler: keyof Routes,
  principal: Principal | undefined,
  req: { headers?: Record<string, string>; params?: Record<string, string> } = {},
): ExecutionContext {
  return {
    getHandler: () => Routes.prototype[handler],
    getClass: () => Routes,
    switchToHttp: () => ({ getRequest: () => ({ headers: {}, params: {}, ...req, principal }) }),
  } as unknown as ExecutionContext;
}

async function outcome(run: () => boolean | Promise<boolean>): Promise<string> {
  try {
    return (await run()) ? 'allowed' : 'refused';
  } catch (error) {
    return `${(error as AppException).status} ${(error as AppException).code}`;
  }
}

describe('the reusable route guards', () => {
  const reflector = new Reflector();

  it('each decorator installs its guard on the route', () => {
    expect(Reflect.getMetadata(GUARDS_METADATA, Routes.prototype.profile)).toEqual([ScopeGuard]);
    expect(Reflect.getMetadata(GUARDS_METADATA, Routes.prototype.strict)).toEqual([ClientIdHeaderGuard]);
    expect(Reflect.getMetadata(GUARDS_METADATA, Routes.prototype.owned)).toEqual([OwnershipGuard]);
  });

  describe('ScopeGuard', () => {
    const guard = new ScopeGuard(reflector);
    it('lets an app through only with every required scope (403 insufficient_scope otherwise)', async () => {
      expect(await outcome(() => guard.canActivate(contextFor('profile', app(['profile:read']))))).toBe('allowed');
      expect(await outcome(() => guard.canActivate(contextFor('profile', app(['api:access']))))).toBe(
        '403 INSUFFICIENT_SCOPE',
      );
    });
    it('names the scope in WWW-Authenticate', () => {
      try {
        guard.canActivate(contextFor('profile', app([])));
        throw new Error('not refused');
      } catch (error) {
        expect((error as AppException).options.headers?.['WWW-Authenticate']).toBe(
          'Bearer error="insufficient_scope", scope="profile:read"',
        );
      }
    });
    it('treats the user’s own session as holding every scope', async () => {
      expect(await outcome(() => guard.canActivate(contextFor('profile', session)))).toBe('allowed');
    });
  });

  describe('ClientIdHeaderGuard', () => {
    const guard = new ClientIdHeaderGuard(reflector);
    const header = (value: string) => ({ headers: { 'x-service-oauth-client-id': value } });
    it('needs the header with an app’s token: missing 400, foreign 401, matching allowed', async () => {
      expect(await outcome(() => guard.canActivate(contextFor('strict', app([]))))).toBe('400 INVALID_REQUEST');
      expect(await outcome(() => guard.canActivate(contextFor('strict', app([]), header('syc_other'))))).toBe(
        '401 INVALID_TOKEN',
      );
      expect(await outcome(() => guard.canActivate(contextFor('strict', app([]), header('syc_app'))))).toBe('allowed');
    });
    it('may make the header optional, but a sent one must still match', async () => {
      expect(await outcome(() => guard.canActivate(contextFor('lenient', app([]))))).toBe('allowed');
      expect(await outcome(() => guard.canActivate(contextFor('lenient', app([]), header('syc_other'))))).toBe(
        '401 INVALID_TOKEN',
      );
    });
    it('means nothing to a user’s session', async () => {
      expect(await outcome(() => guard.canActivate(contextFor('strict', session)))).toBe('allowed');
    });
  });

  describe('OwnershipGuard', () => {
    const modules = { get: () => new Documents() } as unknown as ModuleRef;
    const guard = new OwnershipGuard(reflector, modules);
    it('lets the owner through and answers 404 for another user’s resource and for none at all', async () => {
      expect(await outcome(() => guard.canActivate(contextFor('owned', session, { params: { id: 'mine' } })))).toBe(
        'allowed',
      );
      expect(await outcome(() => guard.canActivate(contextFor('owned', session, { params: { id: 'theirs' } })))).toBe(
        '404 DOCUMENT_NOT_FOUND',
      );
      expect(await outcome(() => guard.canActivate(contextFor('owned', session, { params: { id: 'missing' } })))).toBe(
        '404 DOCUMENT_NOT_FOUND',
      );
    });
  });
});
