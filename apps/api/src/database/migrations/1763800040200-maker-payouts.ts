import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Payouts of makers' earnings (docs/earnings.md, "Payouts"): a maker's Stripe Connect account (or the sandbox's),
 * and each payout: the whole cents of the available earnings it took, sent as one Stripe transfer whose
 * idempotency key is the payout's id (`pending` until Stripe answered, then `paid` with the transfer's id). The
 * earnings rows a payout took name it (`payout_id`); what was below a cent went to the maker's budget.
 */
export class MakerPayouts1763800040200 implements MigrationInterface {
  name = 'MakerPayouts1763800040200';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE maker_payout_accounts (
        user_id uuid PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
        account_id text NOT NULL UNIQUE,
        sandbox boolean NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`
      CREATE TABLE maker_payouts (
        id uuid PRIMARY KEY,
        maker_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        account_id text NOT NULL,
        amount_micros bigint NOT NULL CHECK (amount_micros > 0 AND amount_micros % 10000 = 0),
        status text NOT NULL CHECK (status IN ('pending', 'paid')),
        transfer_id text UNIQUE,
        sandbox boolean NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        paid_at timestamptz
      )`);
    await queryRunner.query(`CREATE INDEX maker_payouts_maker_idx ON maker_payouts (maker_id, created_at DESC)`);
    await queryRunner.query(`ALTER TABLE maker_earnings ADD COLUMN payout_id uuid`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE maker_earnings DROP COLUMN payout_id`);
    await queryRunner.query(`DROP TABLE maker_payouts`);
    await queryRunner.query(`DROP TABLE maker_payout_accounts`);
  }
}
