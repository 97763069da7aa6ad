import { BeforeApplicationShutdown, Injectable, Logger, OnModuleInit } from '@nestjs/common';
import type {
  AppAllowanceResponse,
  ConsentLimits,
  ConsentResponse,
  ConsentSponsor,
  OAuthScope,
} from '@switchyard/shared-dto';
import type { ConsentLimitsDto } from '@switchyard/shared-dto/validation';
import { OAUTH_TOKENS_TOPIC } from '../../common/redis/topics';
import { InvalidationBus } from '../../common/redis/invalidation-bus';
import { limitChanges, limitsOf } from '../../common/spend-limits';
import { SpendReadService, SponsorService } from '../usage';
import { ConsentsErrorCode, ConsentsException } from './consents.exception';
import { ConsentRow, ConsentsRepository } from './consents.repository';
import type { ConsentEntity } from './entities/consent.entity';
import { AccountCredentials, AccountDeletion } from '../accounts';

const TOUCH_INTERVAL_MS = 5_000;

/**
 * Consents (docs/decisions.md#resource-shapes): what each user let each app do and spend. A consent is created or widened by
 * every authorization; revoking it deletes it with every token of that user and app, at once on every instance.
 */
@Injectable()
export class ConsentsService implements OnModuleInit, BeforeApplicationShutdown {
  private readonly used = new Map<string, { userId: string; clientPk: number }>();
  private timer: NodeJS.Timeout | undefined;
  private readonly logger = new Logger('Consents');

  constructor(
    private readonly repository: ConsentsRepository,
    private readonly bus: InvalidationBus,
    private readonly spendReads: SpendReadService,
    private readonly sponsors: SponsorService,
    private readonly deletion: AccountDeletion,
    private readonly credentials: AccountCredentials,
  ) {}

  onModuleInit(): void {
    this.deletion.register(
      "revoke every app's access and tokens",
      async (userId) => void (await this.revokeAll(userId)),
    );
    this.credentials.register('appAuthorizations', {
      revokeAll: (userId) => this.revokeAll(userId),
      // Every instance empties its cache of OAuth token lookups (the topic's handlers clear it whole).
      forget: (userId) => this.bus.publish(OAUTH_TOKENS_TOPIC, `user:${userId}`),
    });
    this.timer = setInterval(() => void this.flushTouches(), TOUCH_INTERVAL_MS);
    this.timer.unref();
  }

  async beforeApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.flushTouches();
  }

  find(userId: string, clientPk: number): Promise<ConsentEntity | null> {
    return this.repository.find(userId, clientPk);
  }

  /**
   * Records (or widens) the consent; `limits` given change the app's caps (currency units; omitted ones stay).
   * `markupPercent`: the app's markup the user agreed to now (docs/earnings.md; kept at most the app's rate). A
   * changed rate reaches the next call on every instance (the cached token meanings are dropped).
   */
  async grant(
    userId: string,
    clientPk: number,
    scopes: OAuthScope[],
    markupPercent: number,
    limits?: ConsentLimitsDto,
  ): Promise<void> {
    const before = await this.repository.find(userId, clientPk);
    await this.repository.grant(userId, clientPk, scopes, markupPercent);
    if (limits) await this.repository.setLimits(userId, clientPk, limitChanges(limits));
    if (before && before.markupPercent !== markupPercent)
      await this.bus.publish(OAUTH_TOKENS_TOPIC, `consent:${userId}:${clientPk}`);
  }

  /** A cut of an app's markup: every consent above it comes down to it at once. */
  capMarkup(clientPk: number, markupPercent: number): Promise<void> {
    return this.repository.capMarkup(clientPk, markupPercent);
  }

  /** Per app: how many users are still on a lower rate than the app's markup (they approve again to move). */
  countOnOldRate(clientPks: number[]): Promise<Map<number, number>> {
    return this.repository.countOnOldRate(clientPks);
  }

  /** Every app the user authorized: three reads in all (consents, spend, sponsorships), whatever their number. */
  async list(userId: string): Promise<ConsentResponse[]> {
    const [rows, spend, sponsors] = await Promise.all([
      this.repository.listByUser(userId),
      this.spendReads.appSpendThisMonth(userId),
      this.sponsors.sponsorshipsOf(userId),
    ]);
    return rows.map((row) => toResponse(row, spend.get(row.clientId) ?? 0, sponsors.get(row.clientId) ?? null));
  }

  count(userId: string): Promise<number> {
    return this.repository.countByUser(userId);
  }

  countUsersByClient(clientPks: number[]): Promise<Map<number, number>> {
    return this.repository.countUsersByClient(clientPks);
  }

  /** Deletes the consent and every token of this user and app; they stop working at once on every instance. */
  async revoke(userId: string, clientId: string): Promise<{ clientId: string }> {
    const consent = await this.owned(userId, clientId);
    await this.repository.delete(userId, consent.clientPk);
    await this.bus.publish(OAUTH_TOKENS_TOPIC, `consent:${userId}:${consent.clientPk}`);
    return { clientId };
  }

  /** Revokes every app's access of the user, and their tokens, at once (a deleted account, or asked for); answers how many apps. */
  async revokeAll(userId: string): Promise<number> {
    const consents = await this.repository.listByUser(userId);
    for (const consent of consents) {
      await this.repository.delete(userId, consent.clientPk);
      await this.bus.publish(OAUTH_TOKENS_TOPIC, `consent:${userId}:${consent.clientPk}`);
    }
    return consents.length;
  }

  async setLimits(userId: string, clientId: string, limits: ConsentLimitsDto): Promise<ConsentResponse> {
    const consent = await this.owned(userId, clientId);
    await this.repository.setLimits(userId, consent.clientPk, limitChanges(limits));
    // Every instance gives back the budget it leased for this app's calls, so the new caps hold from the next call.
    await this.bus.publish(OAUTH_TOKENS_TOPIC, `consent-limits:${userId}:${consent.clientPk}`);
    return this.respond(userId, (await this.repository.findByClientId(userId, clientId))!);
  }

  /** One app the user authorized (the dashboard's popups check the app's redirect URIs with it). */
  async get(userId: string, clientId: string): Promise<ConsentResponse> {
    return this.respond(userId, await this.owned(userId, clientId));
  }

  /** What is left of the caps the user set on this app (GET /api/v1/oauth2/consents/current, for the app). */
  async allowance(userId: string, clientId: string): Promise<AppAllowanceResponse> {
    const consent = await this.owned(userId, clientId);
    const micros = await this.repository.spend(userId, clientId);
    const spent = {
      total: micros.total / 1e6,
      daily: micros.daily / 1e6,
      weekly: micros.weekly / 1e6,
      monthly: micros.monthly / 1e6,
    };
    const limits = limitsOf(consent);
    const left = (limit: number | null, used: number) =>
      limit === null ? null : Math.max(0, Math.round((limit - used) * 1e6)) / 1e6;
    const remaining: ConsentLimits = {
      total: left(limits.total, spent.total),
      daily: left(limits.daily, spent.daily),
      weekly: left(limits.weekly, spent.weekly),
      monthly: left(limits.monthly, spent.monthly),
      perRequest: limits.perRequest,
    };
    return { clientId: consent.clientId, clientName: consent.clientName, limits, spent, remaining };
  }

  /** Notes that an app acted for a user; last_used_at is written in batches, off the hot path. */
  markUsed(userId: string, clientPk: number): void {
    this.used.set(`${userId}:${clientPk}`, { userId, clientPk });
  }

  /** Never throws (it runs from a timer): a failed write is logged and retried at the next flush. */
  async flushTouches(): Promise<void> {
    if (!this.used.size) return;
    const pairs = [...this.used.values()];
    this.used.clear();
    try {
      await this.repository.touch(pairs);
    } catch (error) {
      this.logger.warn(`recording last use of ${pairs.length} consents failed: ${(error as Error).message}`);
      for (const pair of pairs) this.used.set(`${pair.userId}:${pair.clientPk}`, pair);
    }
  }

  private async respond(userId: string, consent: ConsentRow): Promise<ConsentResponse> {
    const [spend, sponsors] = await Promise.all([
      this.spendReads.appSpendThisMonth(userId),
      this.sponsors.sponsorshipsOf(userId),
    ]);
    return toResponse(consent, spend.get(consent.clientId) ?? 0, sponsors.get(consent.clientId) ?? null);
  }

  /** The user's consent for the app, or CONSENT_NOT_FOUND. */
  private async owned(userId: string, clientId: string): Promise<ConsentRow> {
    const consent = await this.repository.findByClientId(userId, clientId);
    if (!consent) throw new ConsentsException(ConsentsErrorCode.CONSENT_NOT_FOUND, 'You have not authorized this app');
    return consent;
  }
}

function toResponse(row: ConsentRow, spentThisMonth: number, sponsor: ConsentSponsor | null): ConsentResponse {
  return {
    clientId: row.clientId,
    clientName: row.clientName,
    scopes: row.scopes,
    grantedAt: row.grantedAt.toISOString(),
    lastUsedAt: row.lastUsedAt?.toISOString() ?? null,
    limits: limitsOf(row),
    spentThisMonth,
    redirectUris: row.redirectUris,
    markupPercent: Math.min(row.markupPercent, row.appMarkupPercent),
    pendingMarkupPercent: row.appMarkupPercent > row.markupPercent ? row.appMarkupPercent : null,
    sponsor,
  };
}
