import { MigrationInterface, QueryRunner } from 'typeorm';

const KINDS_BEFORE = `'signup_credit', 'payment', 'gift_card', 'admin_adjustment', 'usage', 'reversal', 'earnings'`;

/**
 * Refunds and disputes of card top-ups (docs/payments.md, "Refunds and disputes"). payment_refunds: one row per
 * Stripe refund or dispute (keyed by its id: `re_…`, `dp_…`, or the sandbox's `re_sandbox_…`), naming the
 * top-up; of its amount, what was debited from the user's free balance (a ledger entry of kind `refund`, keyed
 * `refund:<id>`) and what the balance no longer held: the operator's loss. Never more than the top-up in all.
 * maker_earnings.clawed_micros: what refunds and disputes took back of a pending earning (docs/earnings.md); a
 * move or payout takes earnings_micros − clawed_micros. payment_refunds.clawed_micros: what one refund took back.
 */
export class PaymentRefunds1763800040300 implements MigrationInterface {
  name = 'PaymentRefunds1763800040300';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE ledger_entries DROP CONSTRAINT ledger_entries_kind_check`);
    await queryRunner.query(
      `ALTER TABLE ledger_entries ADD CONSTRAINT ledger_entries_kind_check CHECK (kind IN (${KINDS_BEFORE}, 'refund'))`,
    );
    await queryRunner.query(`
      CREATE TABLE payment_refunds (
        id text PRIMARY KEY,
        payment_id text NOT NULL REFERENCES payments (id) ON DELETE CASCADE,
        user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        kind text NOT NULL CHECK (kind IN ('refund', 'dispute')),
        amount_micros bigint NOT NULL CHECK (amount_micros > 0),
        debited_micros bigint NOT NULL CHECK (debited_micros >= 0),
        lost_micros bigint NOT NULL CHECK (lost_micros >= 0 AND debited_micros + lost_micros = amount_micros),
        clawed_micros bigint NOT NULL DEFAULT 0 CHECK (clawed_micros >= 0),
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`CREATE INDEX payment_refunds_payment_idx ON payment_refunds (payment_id)`);
    await queryRunner.query(`CREATE INDEX payment_refunds_user_idx ON payment_refunds (user_id, created_at)`);
    await queryRunner.query(
      `ALTER TABLE maker_earnings ADD COLUMN clawed_micros bigint NOT NULL DEFAULT 0
         CHECK (clawed_micros >= 0 AND clawed_micros <= earnings_micros)`,
    );
    await queryRunner.query(`CREATE INDEX maker_earnings_payer_idx ON maker_earnings (user_id, available_at)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX maker_earnings_payer_idx`);
    await queryRunner.query(`ALTER TABLE maker_earnings DROP COLUMN clawed_micros`);
    await queryRunner.query(`DROP TABLE payment_refunds`);
    await queryRunner.query(`ALTER TABLE ledger_entries DROP CONSTRAINT ledger_entries_kind_check`);
    await queryRunner.query(
      `ALTER TABLE ledger_entries ADD CONSTRAINT ledger_entries_kind_check CHECK (kind IN (${KINDS_BEFORE}))`,
    );
  }
}
