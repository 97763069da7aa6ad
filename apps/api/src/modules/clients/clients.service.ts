import { randomBytes, timingSafeEqual } from 'node:crypto';
import { Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import {
  ACCESS_TOKEN_TTL_DEFAULT,
  type ClientUsageResponse,
  type OAuthClientResponse,
  type OAuthScope,
  REFRESH_TOKEN_TTL_DEFAULT,
  reservedNameProblem,
  type UserRole,
} from '@switchyard/shared-dto';
import type {
  ClientUsageQueryDto,
  OAuthClientCreateDto,
  OAuthClientUpdateDto,
} from '@switchyard/shared-dto/validation';
import type { OwnedResources } from '../../common/auth/ownership.guard';
import { OAUTH_TOKENS_TOPIC } from '../../common/redis/topics';
import { randomToken, sha256 } from '../../common/crypto';
import { InvalidationBus } from '../../common/redis/invalidation-bus';
import { ConsentsService } from '../consents';
import { UsageService } from '../usage';
import { ClientsErrorCode, ClientsException } from './clients.exception';
import { ClientsRepository } from './clients.repository';
import type { OAuthClientEntity } from './entities/oauth-client.entity';
import type { OAuthClient } from './oauth-client';

/** Also the CHECK on oauth_clients.slot (migration 1763800010000). */
const MAX_CLIENTS_PER_OWNER = 50;
/** A dynamic registration that obtained no token within this many hours is ignored, then deleted. */
export const UNUSED_REGISTRATION_HOURS = 24;
const PURGE_MS = 3_600_000;
const DAY_MS = 86_400_000;
const USAGE_WINDOW_DAYS = 30;
const MAX_USAGE_WINDOW_DAYS = 366;

/** Public client ids: not secrets, but unguessable enough that nobody enumerates apps (128 bits). */
const newClientId = () => `syc_${randomBytes(16).toString('base64url')}`;
const newClientSecret = () => randomToken('sycs_');

/** `createdAt`/`updatedAt` of clients are shown without a zone (docs/decisions.md#names-and-defaults); the values are UTC. */
const withoutZone = (date: Date) => date.toISOString().replace(/Z$/, '');

export interface DynamicClientMetadata {
  clientName: string;
  redirectUris: string[];
  scopes: OAuthScope[];
}

/** A space app's client as its app sees it (docs/spaces.md#each-app-an-oauth-client). */
export interface SpaceClientRequest {
  ownerId: string;
  /** The client registered at an earlier publish (reused when it is still the owner's), or null. */
  existing: number | null;
  clientName: string;
  /** The app's origin with a trailing slash: the only redirect URI. */
  redirectUri: string;
  /** What a visitor's consent caps monthly unless the visitor sets another (currency units). */
  visitorMonthlyCap: number;
}

/** Who registers or renames an app: admins may name first-party apps after the service. */
export interface ClientActor {
  userId: string;
  role: UserRole;
}

/** OAuth2 clients: registration by their owners (and dynamically, RFC 7591), lookup for the protocol. */
@Injectable()
export class ClientsService implements OwnedResources, OnModuleInit, OnModuleDestroy {
  private purgeTimer: NodeJS.Timeout | undefined;
  private readonly logger = new Logger('Clients');

  constructor(
    private readonly repository: ClientsRepository,
    private readonly consents: ConsentsService,
    private readonly usageReads: UsageService,
    private readonly bus: InvalidationBus,
  ) {}

  onModuleInit(): void {
    this.purgeTimer = setInterval(
      () =>
        void this.purgeUnusedRegistrations().catch((error: Error) =>
          this.logger.warn(`purge failed: ${error.message}`),
        ),
      PURGE_MS,
    );
    this.purgeTimer.unref();
  }

  onModuleDestroy(): void {
    clearInterval(this.purgeTimer);
  }

  async create(actor: ClientActor, body: OAuthClientCreateDto): Promise<OAuthClientResponse> {
    this.checkName(actor, body.clientName);
    const redirectUris = redirectUrisOf(body);
    if (!redirectUris?.length)
      throw new ClientsException(
        ClientsErrorCode.REDIRECT_URI_REQUIRED,
        'Register at least one redirect URI',
        'redirectUris',
      );
    const secret = body.generateSecret ? newClientSecret() : null;
    const fields = {
      clientId: newClientId(),
      ownerId: actor.userId,
      clientName: body.clientName,
      clientType: secret ? ('CONFIDENTIAL' as const) : ('PUBLIC' as const),
      secretHash: secret ? sha256(secret) : null,
      redirectUris,
      scopes: uniqueScopes(body.requestedScopes ?? ['api:access']),
      accessTokenTtlSeconds: body.accessTokenTtlSeconds ?? ACCESS_TOKEN_TTL_DEFAULT,
      refreshTokenTtlSeconds: body.refreshTokenTtlSeconds ?? REFRESH_TOKEN_TTL_DEFAULT,
      rateLimitRpm: body.requestsPerMinute ?? null,
      markupPercent: body.markupPercent ?? 0,
    };
    // Each failed try means a concurrent create took the slot it picked, so this ends within the slot count.
    for (let attempt = 0; attempt <= MAX_CLIENTS_PER_OWNER; attempt += 1) {
      const client = await this.repository.insertOwned(fields, MAX_CLIENTS_PER_OWNER);
      if (client === 'full') break;
      if (client !== 'taken') return { ...toResponse(client, 0, 0), ...(secret ? { clientSecret: secret } : {}) };
    }
    throw new ClientsException(
      ClientsErrorCode.CLIENT_LIMIT_REACHED,
      `At most ${MAX_CLIENTS_PER_OWNER} apps per account; delete one first`,
    );
  }

  /** RFC 7591: a public PKCE client nobody owns; it always asks for consent, and expires unused after a day. */
  async registerDynamic(metadata: DynamicClientMetadata): Promise<OAuthClient> {
    return this.repository.insertDynamic({
      clientId: newClientId(),
      clientName: metadata.clientName,
      clientType: 'PUBLIC',
      secretHash: null,
      redirectUris: metadata.redirectUris,
      scopes: uniqueScopes(metadata.scopes),
      accessTokenTtlSeconds: ACCESS_TOKEN_TTL_DEFAULT,
      refreshTokenTtlSeconds: REFRESH_TOKEN_TTL_DEFAULT,
    });
  }

  /**
   * Registers a space app's client, or reuses and reactivates the one of an earlier publish (renamed and pointed at
   * the app's current origin): a public PKCE client owned by the app's creator. Returns its keys.
   */
  async registerForSpaceApp(request: SpaceClientRequest): Promise<{ id: number; clientId: string }> {
    const redirectUris = [request.redirectUri];
    const existing = request.existing === null ? null : await this.repository.findByRef(String(request.existing));
    if (existing && existing.ownerId === request.ownerId) {
      await this.repository.update(existing.id, {
        clientName: request.clientName,
        redirectUris,
        isActive: true,
        // The origin moved (a new handle): an admin's trust was for the old one.
        ...(sameSet(redirectUris, existing.redirectUris) ? {} : { trusted: false }),
      });
      await this.bus.publish(OAUTH_TOKENS_TOPIC, `client:${existing.id}`);
      return { id: existing.id, clientId: existing.clientId };
    }
    const client = await this.repository.insertSpace({
      clientId: newClientId(),
      ownerId: request.ownerId,
      clientName: request.clientName,
      clientType: 'PUBLIC',
      secretHash: null,
      redirectUris,
      scopes: uniqueScopes(['api:access', 'openid', 'profile']),
      accessTokenTtlSeconds: ACCESS_TOKEN_TTL_DEFAULT,
      refreshTokenTtlSeconds: REFRESH_TOKEN_TTL_DEFAULT,
      visitorMonthlyCapMicros: String(Math.round(request.visitorMonthlyCap * 1e6)),
    });
    return { id: client.id, clientId: client.clientId };
  }

  /** The public client id of an owner's active client, by its row id (a space app's page needs it); else null. */
  async activeClientIdOf(ownerId: string, id: number): Promise<string | null> {
    const client = await this.repository.findByRef(String(id));
    return client && client.ownerId === ownerId && client.isActive ? client.clientId : null;
  }

  /** The public ids of clients by their row ids (a space app lists its own). */
  async publicIdsOf(ids: number[]): Promise<Map<number, string>> {
    const clients = await this.repository.findByIds(ids);
    return new Map(clients.map((client) => [client.id, client.clientId]));
  }

  /** Deactivates (`delete: false`) or deletes an owner's client by its row id; nothing when it is not theirs. */
  async retireOwned(ownerId: string, id: number, how: { delete: boolean }): Promise<void> {
    const client = await this.repository.findByRef(String(id));
    if (!client || client.ownerId !== ownerId) return;
    if (how.delete) await this.repository.delete(client.id);
    else await this.repository.update(client.id, { isActive: false });
    await this.bus.publish(OAUTH_TOKENS_TOPIC, `client:${client.id}`);
  }

  /** Admin only (the route says so): whether a first-party app skips the consent page. */
  async setTrusted(ref: string, trusted: boolean): Promise<OAuthClientResponse> {
    const client = await this.byRef(ref);
    if (trusted && client.registration === 'dynamic')
      throw new ClientsException(
        ClientsErrorCode.CLIENT_NOT_TRUSTABLE,
        'A dynamically registered app has no accountable owner and cannot be trusted',
        'clientId',
      );
    await this.repository.update(client.id, { trusted });
    return this.get(String(client.id));
  }

  /** Deletes dynamic registrations that obtained no token within a day (hourly; findActive ignores them before). */
  async purgeUnusedRegistrations(): Promise<number> {
    return this.repository.deleteUnusedDynamic(UNUSED_REGISTRATION_HOURS);
  }

  /** Notes the first token issued to a client (what keeps a dynamic registration from expiring). */
  async markUsed(client: OAuthClient): Promise<void> {
    if (client.usedAt === null) await this.repository.markUsed(client.id);
  }

  async list(ownerId: string): Promise<OAuthClientResponse[]> {
    const clients = await this.repository.listByOwner(ownerId);
    const ids = clients.map((client) => client.id);
    const [counts, oldRate] = await Promise.all([
      this.consents.countUsersByClient(ids),
      this.consents.countOnOldRate(ids),
    ]);
    return clients.map((client) => toResponse(client, counts.get(client.id) ?? 0, oldRate.get(client.id) ?? 0));
  }

  /** The caller's client (the ownership guard ran first). */
  async get(ref: string): Promise<OAuthClientResponse> {
    const client = await this.byRef(ref);
    const [counts, oldRate] = await Promise.all([
      this.consents.countUsersByClient([client.id]),
      this.consents.countOnOldRate([client.id]),
    ]);
    return toResponse(client, counts.get(client.id) ?? 0, oldRate.get(client.id) ?? 0);
  }

  async update(actor: ClientActor, ref: string, body: OAuthClientUpdateDto): Promise<OAuthClientResponse> {
    if (body.clientName !== undefined) this.checkName(actor, body.clientName);
    const client = await this.byRef(ref);
    const redirectUris = redirectUrisOf(body);
    if (redirectUris && !redirectUris.length)
      throw new ClientsException(
        ClientsErrorCode.REDIRECT_URI_REQUIRED,
        'Keep at least one redirect URI',
        'redirectUris',
      );
    // An admin trusted the app as it was: where its codes go and what it may ask for. An owner who changes either
    // would otherwise get silent codes for every user at a new address, so the trust ends until an admin renews it.
    const changesTrustedShape =
      (redirectUris !== undefined && !sameSet(redirectUris, client.redirectUris)) ||
      (body.requestedScopes !== undefined && !sameSet(uniqueScopes(body.requestedScopes), client.scopes));
    await this.repository.update(client.id, {
      ...(client.trusted && changesTrustedShape && actor.role !== 'admin' ? { trusted: false } : {}),
      ...(body.clientName !== undefined ? { clientName: body.clientName } : {}),
      ...(redirectUris ? { redirectUris } : {}),
      ...(body.requestedScopes ? { scopes: uniqueScopes(body.requestedScopes) } : {}),
      ...(body.accessTokenTtlSeconds !== undefined ? { accessTokenTtlSeconds: body.accessTokenTtlSeconds } : {}),
      ...(body.refreshTokenTtlSeconds !== undefined ? { refreshTokenTtlSeconds: body.refreshTokenTtlSeconds } : {}),
      ...(body.requestsPerMinute !== undefined ? { rateLimitRpm: body.requestsPerMinute } : {}),
      ...(body.markupPercent !== undefined ? { markupPercent: body.markupPercent } : {}),
    });
    // A cut applies to every user at once; a raise only to users who approve it (docs/earnings.md): consents keep
    // what their users agreed to, and a call is priced at the lower of that and the app's rate.
    if (body.markupPercent !== undefined && body.markupPercent < client.markupPercent)
      await this.consents.capMarkup(client.id, body.markupPercent);
    // Narrowed scopes, a changed name, rate limit or markup must show on the next call of every instance.
    await this.bus.publish(OAUTH_TOKENS_TOPIC, `client:${client.id}`);
    return this.get(String(client.id));
  }

  /** Soft delete: the row stays, its tokens stop working at once and no new authorization starts. */
  async deactivate(ref: string): Promise<OAuthClientResponse> {
    const client = await this.byRef(ref);
    await this.repository.update(client.id, { isActive: false });
    await this.bus.publish(OAUTH_TOKENS_TOPIC, `client:${client.id}`);
    return this.get(String(client.id));
  }

  /**
   * Makes a deactivated app active again: new authorizations start, and tokens issued before the deactivation
   * that have not expired work again (a deactivation pauses them; deleting the app ends them).
   */
  async reactivate(ref: string): Promise<OAuthClientResponse> {
    const client = await this.byRef(ref);
    await this.repository.update(client.id, { isActive: true });
    await this.bus.publish(OAUTH_TOKENS_TOPIC, `client:${client.id}`);
    return this.get(String(client.id));
  }

  /**
   * A new secret for a confidential app, returned this once: only its hash is kept, and the token endpoint
   * refuses the old one from the next request (it reads the hash on every request). Issued tokens stay valid.
   */
  async rotateSecret(ref: string): Promise<OAuthClientResponse> {
    const client = await this.byRef(ref);
    if (client.clientType !== 'CONFIDENTIAL')
      throw new ClientsException(
        ClientsErrorCode.CLIENT_HAS_NO_SECRET,
        'A public app has no secret: it proves itself with PKCE',
      );
    const secret = newClientSecret();
    await this.repository.update(client.id, { secretHash: sha256(secret) });
    return { ...(await this.get(String(client.id))), clientSecret: secret };
  }

  /** Deletes the client with every consent, grant, code and token of it. */
  async delete(ref: string): Promise<{ id: number; clientId: string }> {
    const client = await this.byRef(ref);
    await this.repository.delete(client.id);
    await this.bus.publish(OAUTH_TOKENS_TOPIC, `client:${client.id}`);
    return { id: client.id, clientId: client.clientId };
  }

  async usage(ref: string, query: ClientUsageQueryDto): Promise<ClientUsageResponse> {
    const client = await this.byRef(ref);
    const end = query.endDate
      ? parseDate(query.endDate, 'endDate')
      : new Date(Math.floor(Date.now() / DAY_MS) * DAY_MS);
    const start = query.startDate
      ? parseDate(query.startDate, 'startDate')
      : new Date(end.getTime() - (USAGE_WINDOW_DAYS - 1) * DAY_MS);
    if (start > end)
      throw new ClientsException(
        ClientsErrorCode.INVALID_DATE_RANGE,
        'startDate must not be after endDate',
        'startDate',
      );
    if (end.getTime() - start.getTime() > MAX_USAGE_WINDOW_DAYS * DAY_MS)
      throw new ClientsException(
        ClientsErrorCode.INVALID_DATE_RANGE,
        `The window may span at most ${MAX_USAGE_WINDOW_DAYS} days`,
        'startDate',
      );
    const stats = await this.usageReads.clientUsage(client.clientId, start, end);
    return {
      clientId: client.clientId,
      startDate: start.toISOString().slice(0, 10),
      endDate: end.toISOString().slice(0, 10),
      ...stats,
    };
  }

  // --- For the OAuth protocol ---

  /** An active client by its public id, or null; a dynamic registration unused for a day counts as gone. */
  async findActive(clientId: string): Promise<OAuthClient | null> {
    if (typeof clientId !== 'string' || clientId.length > 200) return null;
    const client = await this.repository.findByClientId(clientId);
    if (!client?.isActive) return null;
    const expired =
      client.registration === 'dynamic' &&
      client.usedAt === null &&
      Date.now() - client.createdAt.getTime() > UNUSED_REGISTRATION_HOURS * 3_600_000;
    return expired ? null : client;
  }

  /** A confidential client's secret, compared in constant time over its hash. */
  secretMatches(client: OAuthClient, secret: string): boolean {
    if (!client.secretHash) return false;
    return timingSafeEqual(Buffer.from(sha256(secret)), Buffer.from(client.secretHash));
  }

  // --- OwnedResources, for the ownership guard ---

  async ownerOf(ref: string): Promise<string | null> {
    return (await this.repository.findByRef(ref))?.ownerId ?? null;
  }

  notFound(): ClientsException {
    return new ClientsException(ClientsErrorCode.CLIENT_NOT_FOUND, 'No such OAuth app');
  }

  private checkName(actor: ClientActor, name: string): void {
    const problem = actor.role === 'admin' ? null : reservedNameProblem(name);
    if (problem)
      throw new ClientsException(ClientsErrorCode.CLIENT_NAME_RESERVED, `clientName ${problem}`, 'clientName');
  }

  private async byRef(ref: string): Promise<OAuthClientEntity> {
    const client = await this.repository.findByRef(ref);
    if (!client) throw this.notFound();
    return client;
  }
}

function redirectUrisOf(body: { redirectUris?: string[]; redirectUri?: string }): string[] | undefined {
  if (body.redirectUris === undefined && body.redirectUri === undefined) return undefined;
  return [...new Set([...(body.redirectUris ?? []), ...(body.redirectUri ? [body.redirectUri] : [])])];
}

function sameSet(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((item) => b.includes(item));
}

function uniqueScopes(scopes: OAuthScope[]): OAuthScope[] {
  return [...new Set(scopes)].sort();
}

function parseDate(value: string, field: string): Date {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value) || Number.isNaN(Date.parse(`${value}T00:00:00Z`)))
    throw new ClientsException(
      ClientsErrorCode.INVALID_DATE_RANGE,
      `${field} must be a date such as 2026-11-01`,
      field,
    );
  return new Date(`${value}T00:00:00Z`);
}

function toResponse(
  client: OAuthClientEntity,
  authorizedUserCount: number,
  usersOnOldRate: number,
): OAuthClientResponse {
  return {
    id: client.id,
    clientId: client.clientId,
    clientName: client.clientName,
    clientType: client.clientType,
    redirectUris: client.redirectUris,
    scopes: client.scopes,
    accessTokenTtlSeconds: client.accessTokenTtlSeconds,
    refreshTokenTtlSeconds: client.refreshTokenTtlSeconds,
    requirePkce: client.requirePkce,
    requireConsent: !client.trusted,
    trusted: client.trusted,
    isActive: client.isActive,
    createdAt: withoutZone(client.createdAt),
    updatedAt: withoutZone(client.updatedAt),
    authorizedUserCount,
    requestsPerMinute: client.rateLimitRpm,
    markupPercent: client.markupPercent,
    usersOnOldRate,
  };
}
