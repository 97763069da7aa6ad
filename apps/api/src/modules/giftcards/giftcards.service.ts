import { Inject, Injectable, Logger } from '@nestjs/common';
import type { GiftCardIssueRequest, GiftCardIssueResponse, GiftCardRedeemResponse } from '@switchyard/shared-dto';
import { CommonErrorCode, CommonException } from '../../common/errors/app.exception';
import { RateLimiterService } from '../../common/rate-limit/rate-limiter.service';
import { APP_CONFIG } from '../../config/config.module';
import type { AppConfig } from '../../config/config.schema';
import { BudgetService, toUnits } from '../usage/ledger/budget.service';
import { generateGiftCardCode, hashGiftCardCode, normaliseGiftCardCode } from './gift-card-code';
import { GiftcardsErrorCode, GiftcardsException } from './giftcards.exception';
import { GiftcardsRepository } from './giftcards.repository';

/** The ledger's idempotency key of a card's credit. */
export const giftCardCreditKey = (cardId: string) => `giftcard:${cardId}`;

const money = (units: number) => units.toFixed(2);

/** Gift cards (docs/payments.md): issued by admins, codes shown once and stored hashed, each redeemed once ever. */
@Injectable()
export class GiftcardsService {
  private readonly logger = new Logger('Giftcards');

  constructor(
    private readonly repository: GiftcardsRepository,
    private readonly budget: BudgetService,
    private readonly rateLimiter: RateLimiterService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** Issues `count` cards; the codes are in this answer only. `issuedBy` is null from the command line. */
  async issue(issuedBy: string | null, request: GiftCardIssueRequest): Promise<GiftCardIssueResponse> {
    const expiresAt = request.expiresAt ? new Date(request.expiresAt) : null;
    if (expiresAt && expiresAt.getTime() <= Date.now())
      throw new CommonException(CommonErrorCode.VALIDATION_FAILED, 'Invalid request: check expiresAt', {
        details: [{ field: 'expiresAt', messages: ['expiresAt must be in the future'] }],
      });
    const amountMicros = Math.round(request.amount * 1e6);
    const codes = Array.from({ length: request.count }, () => generateGiftCardCode());
    const ids = await this.repository.insertMany(codes.map(hashGiftCardCode), amountMicros, expiresAt, issuedBy);
    this.logger.log(`${request.count} gift cards of ${money(request.amount)} issued${issuedBy ? ` by ${issuedBy}` : ' from the command line'}`);
    return { amount: toUnits(amountMicros), expiresAt: expiresAt?.toISOString() ?? null, cards: codes.map((code, i) => ({ id: ids[i], code })) };
  }

  /**
   * Redeems once, ever: the claim and the credit are one transaction (GiftcardsRepository.redeem). Every attempt,
   * good or bad, counts against the caller's account and address first, so codes cannot be guessed at speed.
   */
  async redeem(userId: string, clientAddress: string, typed: string): Promise<GiftCardRedeemResponse> {
    const windowSeconds = this.config.rateLimitWindowSeconds;
    await this.rateLimiter.consume({ bucket: 'giftcard-ip', subject: clientAddress, max: this.config.giftcardAttemptsPerIp, windowSeconds });
    await this.rateLimiter.consume({ bucket: 'giftcard-account', subject: userId, max: this.config.giftcardAttemptsPerAccount, windowSeconds });
    const code = normaliseGiftCardCode(typed);
    const outcome = code
      ? await this.repository.redeem(hashGiftCardCode(code), userId, (card, within) =>
          this.budget.credit(userId, card.amountMicros, 'gift_card', card.id, giftCardCreditKey(card.id), within),
        )
      : ({ kind: 'unknown' } as const);
    switch (outcome.kind) {
      case 'unknown':
        throw new GiftcardsException(GiftcardsErrorCode.GIFTCARD_NOT_FOUND, 'No gift card has this code; check it and try again');
      case 'used':
        throw new GiftcardsException(GiftcardsErrorCode.GIFTCARD_ALREADY_REDEEMED, 'This gift card has already been redeemed');
      case 'expired':
        throw new GiftcardsException(GiftcardsErrorCode.GIFTCARD_EXPIRED, 'This gift card has expired');
      case 'redeemed': {
        // Unreachable while claim and credit share a transaction; if it ever happens the card stays used.
        if (!outcome.credited) {
          this.logger.error(`gift card ${outcome.card.id} was claimed but its credit already existed`);
          throw new GiftcardsException(GiftcardsErrorCode.GIFTCARD_ALREADY_REDEEMED, 'This gift card has already been redeemed');
        }
        const amountAdded = toUnits(outcome.card.amountMicros);
        const { remainingBudget } = await this.budget.summary(userId);
        return { success: true, message: `Gift card redeemed: ${money(amountAdded)} added to your balance`, amountAdded, newBalance: remainingBudget };
      }
    }
  }
}
