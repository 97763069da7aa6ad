import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type {
  AdminGiftCardPage,
  GiftCardIssueRequest,
  GiftCardIssueResponse,
  GiftCardRedeemResponse,
  GiftCardStatus,
} from '@switchyard/shared-dto';
import { DataSource } from 'typeorm';
import { moneyWords } from '../../common/money-words';
import { AccountsService } from '../accounts';
import { AuditLogService } from '../audit';
import { CommonErrorCode, CommonException } from '../../common/errors/app.exception';
import { RateLimiterService } from '../../common/rate-limit/rate-limiter.service';
import { APP_CONFIG } from '../../config/config.module';
import type { AppConfig } from '../../config/config.schema';
import { LedgerService, toUnits } from '../usage';
import { generateGiftCardCode, hashGiftCardCode, normaliseGiftCardCode } from './gift-card-code';
import { GiftcardsErrorCode, GiftcardsException } from './giftcards.exception';
import { ClaimedCard, GiftcardsRepository } from './giftcards.repository';

/** The ledger's idempotency key of a card's credit. */
export const giftCardCreditKey = (cardId: string) => `giftcard:${cardId}`;

const money = (units: number) => units.toFixed(2);
/** A bare date means "valid through that day": the card expires when the day ends (UTC), as analytics reads `to`. */
function expiryOf(value: string): Date {
  const date = new Date(value);
  if (/^\d{4}-\d{2}-\d{2}$/.test(value)) date.setUTCDate(date.getUTCDate() + 1);
  return date;
}

/** A time as PostgreSQL writes timestamptz as text (to the microsecond, with its offset). */
const CURSOR_TIME = /^\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(\.\d{1,6})?([+-]\d\d(:?\d\d)?|Z)$/;

/** A list cursor: the last card's creation time and id; null (the first page) when absent or malformed. */
function decodeCursor(cursor: string | null): { createdAt: string; id: string } | null {
  if (!cursor) return null;
  const [createdAt, id] = Buffer.from(cursor, 'base64url').toString('utf8').split('|');
  if (!id || !CURSOR_TIME.test(createdAt) || !/^[0-9a-f-]{36}$/.test(id)) return null;
  return { createdAt, id };
}

/** A claim this old without its credit noted was interrupted (a redemption takes milliseconds). */
const RECOVER_AFTER_SECONDS = 60;
const RECOVERY_SWEEP_MS = 60_000;

/** Gift cards (docs/payments.md): issued by admins, codes shown once and stored hashed, each redeemed once ever. */
@Injectable()
export class GiftcardsService implements OnModuleInit, BeforeApplicationShutdown {
  private readonly logger = new Logger('Giftcards');
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly repository: GiftcardsRepository,
    private readonly ledger: LedgerService,
    private readonly rateLimiter: RateLimiterService,
    private readonly audit: AuditLogService,
    private readonly accounts: AccountsService,
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    this.timer = setInterval(
      () =>
        void this.recoverUnfinished().catch((error: Error) =>
          this.logger.error(`gift card recovery failed: ${error.message}`),
        ),
      RECOVERY_SWEEP_MS,
    );
    this.timer.unref();
  }

  beforeApplicationShutdown(): void {
    clearInterval(this.timer);
  }

  /**
   * Issues `count` cards; the codes are in this answer only. `issuedBy` is null from the command line. The cards
   * and their audit-log entry (who, how many, of what, their ids) are written in one transaction.
   */
  async issue(issuedBy: string | null, request: GiftCardIssueRequest): Promise<GiftCardIssueResponse> {
    const expiresAt = request.expiresAt ? expiryOf(request.expiresAt) : null;
    if (expiresAt && expiresAt.getTime() <= Date.now())
      throw new CommonException(CommonErrorCode.VALIDATION_FAILED, 'Invalid request: check expiresAt', {
        details: [{ field: 'expiresAt', messages: ['expiresAt must be in the future'] }],
      });
    const amountMicros = Math.round(request.amount * 1e6);
    const codes = Array.from({ length: request.count }, () => generateGiftCardCode());
    const ids = await this.dataSource.transaction(async (manager) => {
      const inserted = await this.repository.insertMany(
        manager,
        codes.map(hashGiftCardCode),
        amountMicros,
        expiresAt,
        issuedBy,
      );
      await this.audit.append(manager, {
        adminId: issuedBy,
        action: 'gift_cards_issued',
        targetUserId: null,
        details: { count: request.count, amount: toUnits(amountMicros), expiresAt, cardIds: inserted },
      });
      return inserted;
    });
    this.logger.log(
      `${request.count} gift cards of ${money(request.amount)} issued${issuedBy ? ` by ${issuedBy}` : ' from the command line'}`,
    );
    return {
      amount: toUnits(amountMicros),
      expiresAt: expiresAt?.toISOString() ?? null,
      cards: codes.map((code, i) => ({ id: ids[i], code })),
    };
  }

  /**
   * Redeems once, ever. Every attempt, good or bad, first counts against the caller's account and address, so
   * codes cannot be guessed at speed. Then: claim the card (one conditional UPDATE, so one winner under any
   * concurrency), credit the ledger with the key `giftcard:<card id>`, note the credit. The attempt succeeds only
   * if its own credit was the one made, so concurrent attempts can never both succeed. Crash-safe without a
   * transaction: a card claimed but never credited (its instance died in between) is credited to its redeemer
   * by the owner's retry, or by the recovery sweep on any instance (recoverUnfinished).
   */
  async redeem(userId: string, clientAddress: string, typed: string): Promise<GiftCardRedeemResponse> {
    const windowSeconds = this.config.rateLimitWindowSeconds;
    await this.rateLimiter.consume({
      bucket: 'giftcard-ip',
      subject: clientAddress,
      max: this.config.giftcardAttemptsPerIp,
      windowSeconds,
    });
    await this.rateLimiter.consume({
      bucket: 'giftcard-account',
      subject: userId,
      max: this.config.giftcardAttemptsPerAccount,
      windowSeconds,
    });
    // An operator may ask for a verified address before money comes in (REQUIRE_VERIFIED_EMAIL_FOR_TOPUP).
    await this.accounts.requireVerifiedForTopUp(userId);
    const code = normaliseGiftCardCode(typed);
    const codeHash = code ? hashGiftCardCode(code) : null;
    let card = codeHash ? await this.repository.claim(codeHash, userId) : null;
    if (!card) {
      const state = codeHash ? await this.repository.findByHash(codeHash) : null;
      if (!state)
        throw new GiftcardsException(
          GiftcardsErrorCode.GIFTCARD_NOT_FOUND,
          'No gift card has this code; check it and try again',
        );
      if (!state.redeemedAt)
        throw new GiftcardsException(GiftcardsErrorCode.GIFTCARD_EXPIRED, 'This gift card has expired');
      // The caller's own earlier attempt claimed it but did not get to credit it: finish that attempt now.
      if (state.redeemedBy !== userId || state.creditedAt) throw this.alreadyRedeemed();
      card = { id: state.id, amountMicros: state.amountMicros, userId };
    }
    const credited = await this.creditCard(card);
    if (!credited) throw this.alreadyRedeemed();
    const amountAdded = toUnits(card.amountMicros);
    const { remainingBudget } = await this.ledger.summary(userId);
    return {
      success: true,
      message: `Gift card redeemed: ${moneyWords(card.amountMicros)} added to your balance`,
      amountAdded,
      newBalance: remainingBudget,
    };
  }

  /** Issued cards, newest first, with their status and who redeemed them (the console's list). */
  async list(status: GiftCardStatus | null, limit: number, cursor: string | null): Promise<AdminGiftCardPage> {
    const before = decodeCursor(cursor);
    const rows = await this.repository.list(status, limit + 1, before);
    const page = rows.slice(0, limit);
    const last = page.at(-1);
    return {
      items: page.map(({ cursorAt: _cursorAt, ...row }) => ({ ...row, createdAt: row.createdAt.toISOString() })),
      nextCursor: rows.length > limit && last ? Buffer.from(`${last.cursorAt}|${last.id}`).toString('base64url') : null,
    };
  }

  /** Credits cards whose redemption was interrupted between claim and credit; returns how many it credited. */
  async recoverUnfinished(olderThanSeconds = RECOVER_AFTER_SECONDS): Promise<number> {
    let recovered = 0;
    for (const card of await this.repository.unfinished(olderThanSeconds, 100)) {
      if (await this.creditCard(card)) {
        recovered += 1;
        this.logger.warn(`gift card ${card.id}: an interrupted redemption was credited by the recovery sweep`);
      }
    }
    return recovered;
  }

  /** The one credit path of a card: idempotent by the card id, then noted on the card. */
  private async creditCard(card: ClaimedCard): Promise<boolean> {
    const credited = await this.ledger.credit(
      card.userId,
      card.amountMicros,
      'gift_card',
      card.id,
      giftCardCreditKey(card.id),
    );
    await this.repository.markCredited(card.id);
    return credited;
  }

  private alreadyRedeemed(): GiftcardsException {
    return new GiftcardsException(
      GiftcardsErrorCode.GIFTCARD_ALREADY_REDEEMED,
      'This gift card has already been redeemed',
    );
  }
}
