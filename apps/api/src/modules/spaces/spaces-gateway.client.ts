import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Injectable, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { REQUEST_ID_HEADER } from '@switchyard/shared-dto';
import { Agent, request } from 'undici';
import { randomToken, sha256 } from '../../common/crypto';
import type { PrefixKind } from '../proxy/allowlist';
import type { Caller, CredentialStrategy } from '../proxy/credentials/caller';
import { CredentialRegistry } from '../proxy/credentials/credential-registry';
import { COST_HEADER } from '../proxy/gateway.service';
import { GatewayErrorCode, GatewayException } from '../proxy/gateway.exception';
import type { ChatMessage } from './prompts';

/** One-time internal credentials: 256 random bits, held in this process only, good for one call within a minute. */
const INTERNAL_TOKEN_PREFIX = 'syi_';
const TOKEN_TTL_MS = 60_000;
/** How spaces calls appear in usage records and the activity list. */
export const SPACES_CREDENTIAL_NAME = 'Spaces';
/** The gateway bounds each call by its provider's timeout; this only stops a call that outlives every timeout. */
const CALL_TIMEOUT_MS = 30 * 60_000;

export type ChatOutcome =
  | { ok: true; text: string; finishReason: string | null; cost: number; requestId: string }
  | { ok: false; status: number; code: string; message: string };

/**
 * Spaces' way into the gateway: the job runner calls this instance's own `/v1/chat/completions` over loopback
 * with a one-time credential that resolves to the app's owner (a CredentialStrategy, registered like the OAuth
 * module's). So a generation is a gateway call like any other, on the owner's budget: the allowlist, catalog,
 * reservation, settlement, usage record (named "Spaces"), budget_exhausted and the drain at shutdown all apply
 * unchanged, and none of that logic is repeated here.
 */
@Injectable()
export class SpacesGatewayClient implements CredentialStrategy, OnModuleInit, OnApplicationShutdown {
  readonly kind = 'internal' as const;
  readonly prefixes: PrefixKind[] = ['shared'];
  private readonly grants = new Map<string, { userId: string; expiresAt: number }>();
  private readonly agent = new Agent({ keepAliveTimeout: 10_000, connect: { timeout: 10_000 } });

  constructor(
    private readonly registry: CredentialRegistry,
    private readonly adapterHost: HttpAdapterHost,
  ) {}

  onModuleInit(): void {
    this.registry.register(this);
  }

  claims(token: string): boolean {
    return token.startsWith(INTERNAL_TOKEN_PREFIX);
  }

  async resolve(token: string): Promise<Caller> {
    const key = sha256(token);
    const grant = this.grants.get(key);
    // Single use: a credential that leaked (it never leaves this process) could not be replayed.
    this.grants.delete(key);
    if (!grant || grant.expiresAt < Date.now()) throw new GatewayException(GatewayErrorCode.INVALID_TOKEN, 'Invalid or expired access token');
    return {
      kind: 'internal',
      userId: grant.userId,
      apiKeyId: null,
      oauthClientId: null,
      credentialName: SPACES_CREDENTIAL_NAME,
      scopes: null,
      // GATEWAY_RPM applies to a user's spaces calls together, as to one key.
      rateLimitRpm: null,
      rateLimitSubject: `spaces:${grant.userId}`,
    };
  }

  /** Whether the server listens yet (jobs wait for it: they call it). */
  listening(): boolean {
    return Boolean(this.server()?.listening);
  }

  /** One non-streaming chat completion for `userId`, through this instance's own gateway. */
  async chat(userId: string, model: string, messages: ChatMessage[], requestId: string, signal: AbortSignal): Promise<ChatOutcome> {
    const token = this.mint(userId);
    const response = await request(`${this.baseUrl()}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', [REQUEST_ID_HEADER]: requestId },
      body: JSON.stringify({ model, messages }),
      signal,
      dispatcher: this.agent,
      headersTimeout: CALL_TIMEOUT_MS,
      bodyTimeout: CALL_TIMEOUT_MS,
    });
    const text = await response.body.text();
    let body: Record<string, any> = {}; // eslint-disable-line @typescript-eslint/no-explicit-any
    try {
      body = JSON.parse(text);
    } catch {
      // not JSON: handled below
    }
    if (response.statusCode >= 400) {
      const error = body.error ?? {};
      return {
        ok: false,
        status: response.statusCode,
        code: typeof error.code === 'string' ? error.code : `http_${response.statusCode}`,
        message: typeof error.message === 'string' ? error.message : `The gateway answered ${response.statusCode}`,
      };
    }
    const choice = body.choices?.[0];
    return {
      ok: true,
      text: typeof choice?.message?.content === 'string' ? choice.message.content : '',
      finishReason: typeof choice?.finish_reason === 'string' ? choice.finish_reason : null,
      cost: Number(response.headers[COST_HEADER]) || 0,
      requestId: String(response.headers[REQUEST_ID_HEADER] ?? requestId),
    };
  }

  /** Runs after the job runner has waited for its jobs (beforeApplicationShutdown). */
  async onApplicationShutdown(): Promise<void> {
    await this.agent.close();
  }

  /** Calls `listener` once the server listens (at once when it already does). */
  whenListening(listener: () => void): void {
    const server = this.server();
    if (server?.listening) listener();
    else server?.once('listening', listener);
  }

  private mint(userId: string): string {
    const now = Date.now();
    for (const [key, grant] of this.grants) if (grant.expiresAt < now) this.grants.delete(key);
    const token = randomToken(INTERNAL_TOKEN_PREFIX);
    this.grants.set(sha256(token), { userId, expiresAt: now + TOKEN_TTL_MS });
    return token;
  }

  private server(): Server | undefined {
    return this.adapterHost.httpAdapter?.getHttpServer() as Server | undefined;
  }

  /** This instance's own address, over loopback when it listens on every interface. */
  private baseUrl(): string {
    const address = this.server()?.address() as AddressInfo | null | undefined;
    if (!address || typeof address !== 'object') throw new Error('the server is not listening yet');
    let host = address.address;
    if (host === '0.0.0.0') host = '127.0.0.1';
    else if (host === '::') host = '::1';
    return `http://${address.family === 'IPv6' ? `[${host}]` : host}:${address.port}`;
  }
}
