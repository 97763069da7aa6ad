import 'reflect-metadata';
import { ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { CSRF_HEADER, SESSION_COOKIE } from '@switchyard/shared-dto';
import { ACCESS_KEY, AccessRule } from '../../common/auth/access.decorator';
import type { SessionPrincipal } from '../../common/auth/principal';
import { AccountsException } from './accounts.exception';
import { AccountsService, csrfTokenFor } from './accounts.service';
import { SessionAuthGuard } from './session-auth.guard';

const principal: SessionPrincipal = {
  kind: 'session',
  userId: 'u1',
  email: 'a@b.co',
  role: 'user',
  sessionId: 's1',
  via: 'cookie',
};
const GOOD = 'sys_good';

function contextFor(rule: AccessRule | undefined, req: Record<string, unknown>): ExecutionContext {
  const handler = () => undefined;
  if (rule) Reflect.defineMetadata(ACCESS_KEY, rule, handler);
  return {
    getHandler: () => handler,
    getClass: () => class {},
    switchToHttp: () => ({
      getRequest: () =>
        Object.assign(req, {
          headers: {},
          method: 'GET',
          path: '/api/v1/test',
          header: () => undefined,
          socket: {},
          ...req,
        }),
    }),
  } as unknown as ExecutionContext;
}

describe('SessionAuthGuard (the cookie path)', () => {
  const accounts = {
    resolveSession: jest.fn(async (token: string) => (token === GOOD ? principal : null)),
  } as unknown as AccountsService;
  const guard = new SessionAuthGuard(new Reflector(), accounts);
  const cookie = { cookies: { [SESSION_COOKIE]: GOOD } };
  const codeOf = (promise: Promise<unknown>) =>
    promise.then(
      () => 'allowed',
      (error: AccountsException) => error.code,
    );

  it('refuses a route without a declaration when nobody is signed in (fails closed)', async () => {
    expect(await codeOf(guard.canActivate(contextFor(undefined, {})))).toBe('UNAUTHENTICATED');
  });

  it('lets anyone through a public route and attaches a valid session if there is one', async () => {
    const req = { ...cookie };
    expect(await guard.canActivate(contextFor({ public: true }, req))).toBe(true);
    expect((req as { principal?: SessionPrincipal }).principal).toEqual(principal);
    expect(await guard.canActivate(contextFor({ public: true }, { cookies: { [SESSION_COOKIE]: 'sys_bad' } }))).toBe(
      true,
    );
  });

  it('accepts a cookie for reads, and for writes only with the session’s CSRF token', async () => {
    expect(await codeOf(guard.canActivate(contextFor({}, cookie)))).toBe('allowed');
    expect(await codeOf(guard.canActivate(contextFor({}, { ...cookie, method: 'POST' })))).toBe('CSRF_INVALID');
    const withHeader = (value: string) => ({
      ...cookie,
      method: 'DELETE',
      header: (name: string) => (name === CSRF_HEADER ? value : undefined),
    });
    expect(await codeOf(guard.canActivate(contextFor({}, withHeader('x'.repeat(43)))))).toBe('CSRF_INVALID');
    expect(await codeOf(guard.canActivate(contextFor({}, withHeader(csrfTokenFor(GOOD)))))).toBe('allowed');
  });

  it('refuses an unknown session cookie and a malformed Authorization header', async () => {
    expect(await codeOf(guard.canActivate(contextFor({}, { cookies: { [SESSION_COOKIE]: 'sys_bad' } })))).toBe(
      'SESSION_INVALID',
    );
    expect(await codeOf(guard.canActivate(contextFor({}, { headers: { authorization: 'Basic abc' } })))).toBe(
      'SESSION_INVALID',
    );
  });

  it('checks roles', async () => {
    expect(await codeOf(guard.canActivate(contextFor({ roles: ['admin'] }, cookie)))).toBe('FORBIDDEN');
    expect(await codeOf(guard.canActivate(contextFor({ roles: ['user'] }, cookie)))).toBe('allowed');
  });
});
