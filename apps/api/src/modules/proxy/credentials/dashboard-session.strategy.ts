import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import type { IncomingMessage } from 'node:http';
import { CSRF_HEADER, SESSION_COOKIE } from '@switchyard/shared-dto';
import { crossSiteProblem } from '../../../common/http/same-origin';
import { APP_CONFIG } from '../../../config/config.module';
import type { AppConfig } from '../../../config/config.schema';
import { AccountsService, csrfMatches } from '../../accounts';
import { KeysService } from '../../keys';
import { GatewayErrorCode, GatewayException } from '../errors/gateway.exception';
import { keyCaller } from './api-key.strategy';
import type { Caller, CredentialStrategy } from './caller';
import { CredentialRegistry } from './credential-registry';

const SAFE_METHODS = new Set(['GET', 'HEAD']);

/** One cookie's value from a Cookie header, or undefined. */
export function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const at = part.indexOf('=');
    if (at > 0 && part.slice(0, at).trim() === name) return decodeURIComponent(part.slice(at + 1).trim());
  }
  return undefined;
}

/**
 * The dashboard's session on its own gateway prefix, /dashboard/v1 (docs/dashboard.md, "One playground
 * credential"): the signed-in user's session cookie, with the session's rules for writes (the CSRF header and the
 * refusal of other sites' requests, docs/accounts.md), calls as the user's dashboard key, so the call is rate
 * limited, capped, billed and listed exactly like a call with a key named "Dashboard". No CORS is opened here.
 */
@Injectable()
export class DashboardSessionStrategy implements CredentialStrategy, OnModuleInit {
  readonly kind = 'api_key' as const;
  readonly prefixes = ['dashboard' as const];

  constructor(
    private readonly accounts: AccountsService,
    private readonly keys: KeysService,
    private readonly registry: CredentialRegistry,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    this.registry.register(this);
  }

  /** Never claims a bearer token: the registry hands it /dashboard/v1 calls only. */
  claims(): boolean {
    return false;
  }

  async resolve(_token: string, req: IncomingMessage): Promise<Caller> {
    const session = cookieValue(req.headers.cookie, SESSION_COOKIE);
    if (!session) throw new GatewayException(GatewayErrorCode.MISSING_CREDENTIALS, 'Sign in to the dashboard first');
    if (!SAFE_METHODS.has(req.method ?? 'GET')) {
      const problem = crossSiteProblem(req, this.config.publicUrl);
      if (problem) throw new GatewayException(GatewayErrorCode.CSRF_INVALID, problem);
      const header = req.headers[CSRF_HEADER];
      if (!csrfMatches(session, typeof header === 'string' ? header : undefined))
        throw new GatewayException(GatewayErrorCode.CSRF_INVALID, `Missing or wrong ${CSRF_HEADER} header`);
    }
    const principal = await this.accounts.resolveSession(session, 'cookie');
    if (!principal)
      throw new GatewayException(
        GatewayErrorCode.INVALID_TOKEN,
        'The session is invalid or has expired; sign in again',
      );
    const key = await this.keys.dashboardKey(principal.userId);
    if (!key) throw new GatewayException(GatewayErrorCode.INVALID_API_KEY, 'The dashboard key has expired');
    this.keys.markUsed(key.id);
    return keyCaller(key);
  }
}
