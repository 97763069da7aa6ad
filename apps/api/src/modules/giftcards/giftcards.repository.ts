import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { AdminGiftCard, GiftCardStatus } from '@switchyard/shared-dto';
import { EntityManager, Repository } from 'typeorm';
import { GiftCardEntity } from './entities/gift-card.entity';

export interface ClaimedCard {
  id: string;
  amountMicros: number;
  userId: string;
}

export type CardState = {
  id: string;
  amountMicros: number;
  redeemedAt: Date | null;
  redeemedBy: string | null;
  creditedAt: Date | null;
};

const claimed = (row: { id: string; amount_micros: string; redeemed_by: string }): ClaimedCard => ({
  id: row.id,
  amountMicros: Number(row.amount_micros),
  userId: row.redeemed_by,
});

/**
 * The only code that touches gift_cards. Each change is one statement (no explicit transaction: on the embedded
 * database a transaction interleaved with other connections' queries breaks them, docs/database.md).
 */
@Injectable()
export class GiftcardsRepository {
  constructor(@InjectRepository(GiftCardEntity) private readonly cards: Repository<GiftCardEntity>) {}

  /** Inserts the cards in one statement; answers their ids in the order of `codeHashes`. */
  async insertMany(
    manager: EntityManager,
    codeHashes: string[],
    amountMicros: number,
    expiresAt: Date | null,
    createdBy: string | null,
  ): Promise<string[]> {
    const rows: { id: string; code_hash: string }[] = await manager.query(
      `INSERT INTO gift_cards (code_hash, amount_micros, expires_at, created_by)
       SELECT hash, $2, $3, $4 FROM unnest($1::text[]) AS hash RETURNING id, code_hash`,
      [codeHashes, amountMicros, expiresAt, createdBy],
    );
    const ids = new Map(rows.map((row) => [row.code_hash, row.id]));
    return codeHashes.map((hash) => ids.get(hash) as string);
  }

  /**
   * Claims an unredeemed, unexpired card for the user with one conditional UPDATE: of any number of concurrent
   * attempts, on any instance, exactly one gets the row back (the others wait on its row lock, then see it
   * redeemed). Null when nothing was claimed.
   */
  async claim(codeHash: string, userId: string): Promise<ClaimedCard | null> {
    // As a CTE: TypeORM answers a bare UPDATE with [rows, count] rather than the rows.
    const rows: { id: string; amount_micros: string; redeemed_by: string }[] = await this.cards.query(
      `WITH claimed AS (
         UPDATE gift_cards SET redeemed_at = now(), redeemed_by = $2
          WHERE code_hash = $1 AND redeemed_at IS NULL AND (expires_at IS NULL OR expires_at > now())
          RETURNING id, amount_micros, redeemed_by)
       SELECT id, amount_micros, redeemed_by FROM claimed`,
      [codeHash, userId],
    );
    return rows[0] ? claimed(rows[0]) : null;
  }

  async findByHash(codeHash: string): Promise<CardState | null> {
    const card = await this.cards.findOneBy({ codeHash });
    return card
      ? {
          id: card.id,
          amountMicros: Number(card.amountMicros),
          redeemedAt: card.redeemedAt,
          redeemedBy: card.redeemedBy,
          creditedAt: card.creditedAt,
        }
      : null;
  }

  async markCredited(id: string): Promise<void> {
    await this.cards.query('UPDATE gift_cards SET credited_at = now() WHERE id = $1 AND credited_at IS NULL', [id]);
  }

  /** Cards claimed at least `olderThanSeconds` ago whose credit was never noted (their instance died in between). */
  async unfinished(olderThanSeconds: number, limit: number): Promise<ClaimedCard[]> {
    const rows: { id: string; amount_micros: string; redeemed_by: string }[] = await this.cards.query(
      `SELECT id, amount_micros, redeemed_by FROM gift_cards
        WHERE redeemed_at IS NOT NULL AND credited_at IS NULL AND redeemed_by IS NOT NULL
          AND redeemed_at < now() - make_interval(secs => $1)
        ORDER BY redeemed_at LIMIT $2`,
      [olderThanSeconds, limit],
    );
    return rows.map(claimed);
  }

  /**
   * Issued cards for the console, newest first, below the cursor (created_at, id), with who issued and who redeemed
   * them (their emails read from users, the accounts module's table, in the same query).
   */
  async list(
    status: GiftCardStatus | null,
    limit: number,
    before: { createdAt: string; id: string } | null,
  ): Promise<Array<Omit<AdminGiftCard, 'createdAt'> & { createdAt: Date; cursorAt: string }>> {
    const rows: Record<string, unknown>[] = await this.cards.query(
      `SELECT g.id, g.amount_micros, g.created_at, g.created_at::text AS cursor_at, g.expires_at, g.redeemed_at, g.created_by, ib.email AS issued_email,
              g.redeemed_by, rb.email AS redeemed_email,
              CASE WHEN g.redeemed_at IS NOT NULL THEN 'redeemed'
                   WHEN g.expires_at IS NOT NULL AND g.expires_at <= now() THEN 'expired' ELSE 'unredeemed' END AS status
         FROM gift_cards g
         LEFT JOIN users ib ON ib.id = g.created_by
         LEFT JOIN users rb ON rb.id = g.redeemed_by
        WHERE ($2::timestamptz IS NULL OR (g.created_at, g.id) < ($2::timestamptz, $3::uuid))
          AND ($4::text IS NULL OR $4 = CASE WHEN g.redeemed_at IS NOT NULL THEN 'redeemed'
                   WHEN g.expires_at IS NOT NULL AND g.expires_at <= now() THEN 'expired' ELSE 'unredeemed' END)
        ORDER BY g.created_at DESC, g.id DESC LIMIT $1`,
      [limit, before?.createdAt ?? null, before?.id ?? null, status],
    );
    return rows.map((row) => ({
      id: String(row.id),
      amount: Number(row.amount_micros) / 1e6,
      status: row.status as GiftCardStatus,
      createdAt: row.created_at as Date,
      // The database's own text of the time, to the microsecond: a cursor of milliseconds would skip cards issued
      // together (one statement, one created_at).
      cursorAt: String(row.cursor_at),
      expiresAt: row.expires_at ? (row.expires_at as Date).toISOString() : null,
      issuedBy: row.created_by ? { id: String(row.created_by), email: String(row.issued_email ?? '') } : null,
      redeemedAt: row.redeemed_at ? (row.redeemed_at as Date).toISOString() : null,
      redeemedBy: row.redeemed_by ? { id: String(row.redeemed_by), email: String(row.redeemed_email ?? '') } : null,
    }));
  }
}
