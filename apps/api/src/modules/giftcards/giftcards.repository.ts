import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { GiftCardEntity } from './entities/gift-card.entity';

export interface ClaimedCard {
  id: string;
  amountMicros: number;
}

export type RedeemOutcome = { kind: 'redeemed'; card: ClaimedCard; credited: boolean } | { kind: 'unknown' | 'used' | 'expired' };

/** The only code that touches gift_cards. */
@Injectable()
export class GiftcardsRepository {
  constructor(@InjectRepository(GiftCardEntity) private readonly cards: Repository<GiftCardEntity>) {}

  /** Inserts the cards in one statement; answers their ids in the order of `codeHashes`. */
  async insertMany(codeHashes: string[], amountMicros: number, expiresAt: Date | null, createdBy: string | null): Promise<string[]> {
    const rows: { id: string; code_hash: string }[] = await this.cards.query(
      `INSERT INTO gift_cards (code_hash, amount_micros, expires_at, created_by)
       SELECT hash, $2, $3, $4 FROM unnest($1::text[]) AS hash RETURNING id, code_hash`,
      [codeHashes, amountMicros, expiresAt, createdBy],
    );
    const ids = new Map(rows.map((row) => [row.code_hash, row.id]));
    return codeHashes.map((hash) => ids.get(hash) as string);
  }

  /**
   * Redeems a card exactly once, ever: one transaction claims it with a conditional UPDATE (unredeemed and
   * unexpired, so of any number of concurrent attempts on any instance only one gets the row back; the others
   * wait on its lock and then find it redeemed) and runs `credit` in the same transaction, so the claim and the
   * ledger credit commit together or not at all. Then says why a code that was not claimed was refused.
   */
  async redeem(codeHash: string, userId: string, credit: (card: ClaimedCard, within: EntityManager) => Promise<boolean>): Promise<RedeemOutcome> {
    const claimed = await this.cards.manager.transaction(async (tx) => {
      // As a CTE: TypeORM answers a bare UPDATE with [rows, count] rather than the rows.
      const rows: { id: string; amount_micros: string }[] = await tx.query(
        `WITH claimed AS (
           UPDATE gift_cards SET redeemed_at = now(), redeemed_by = $2
            WHERE code_hash = $1 AND redeemed_at IS NULL AND (expires_at IS NULL OR expires_at > now())
            RETURNING id, amount_micros)
         SELECT id, amount_micros FROM claimed`,
        [codeHash, userId],
      );
      if (!rows.length) return null;
      const card = { id: rows[0].id, amountMicros: Number(rows[0].amount_micros) };
      return { card, credited: await credit(card, tx) };
    });
    if (claimed) return { kind: 'redeemed', ...claimed };
    const [row]: { redeemed_at: Date | null }[] = await this.cards.query('SELECT redeemed_at FROM gift_cards WHERE code_hash = $1', [codeHash]);
    if (!row) return { kind: 'unknown' };
    return { kind: row.redeemed_at ? 'used' : 'expired' };
  }
}
