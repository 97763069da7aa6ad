import { Injectable, OnModuleInit } from '@nestjs/common';
import { KeysService } from '../../keys';
import { GatewayErrorCode, GatewayException } from '../errors/gateway.exception';
import type { Caller, CredentialStrategy } from './caller';
import { CredentialRegistry } from './credential-registry';

/** API keys (docs/decisions.md#api-keys): accepted on /v1 and /apikey/v1; invalid or revoked answers 403. */
@Injectable()
export class ApiKeyStrategy implements CredentialStrategy, OnModuleInit {
  readonly kind = 'api_key' as const;
  readonly prefixes = ['shared' as const, 'apikey' as const];

  constructor(
    private readonly keys: KeysService,
    private readonly registry: CredentialRegistry,
  ) {}

  onModuleInit(): void {
    this.registry.register(this);
  }

  claims(token: string): boolean {
    return this.keys.isApiKey(token);
  }

  async resolve(token: string): Promise<Caller> {
    const key = await this.keys.resolve(token);
    if (!key) throw new GatewayException(GatewayErrorCode.INVALID_API_KEY, 'Invalid or revoked API key');
    this.keys.markUsed(key.id);
    return keyCaller(key);
  }
}

/** The caller of a good API key (a bearer key, or the dashboard's key on the session). */
export function keyCaller(key: NonNullable<Awaited<ReturnType<KeysService['resolve']>>>): Caller {
  return {
    kind: 'api_key',
    userId: key.userId,
    apiKeyId: key.id,
    oauthClientId: null,
    credentialName: key.name,
    scopes: null,
    rateLimitRpm: key.rateLimitRpm,
    rateLimitSubject: `key:${key.id}`,
  };
}
