import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Money in (docs/payments.md): Checkout Sessions, recorded when they are created so that verification checks
 * the owner and the amount against our own row, never against what the client says; and gift cards, stored
 * only as the SHA-256 of their code. The credit itself is a ledger entry (idempotency key `payment:<session>` or
 * `giftcard:<card id>`), so nothing here can credit twice.
 */
export class Payments1763800005000 implements MigrationInterface {
  name = 'Payments1763800005000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE payments (
        id text PRIMARY KEY,
        user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        provider text NOT NULL CHECK (provider IN ('stripe', 'sandbox')),
        amount_micros bigint NOT NULL CHECK (amount_micros > 0),
        currency text NOT NULL,
        status text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'paid', 'expired')),
        created_at timestamptz NOT NULL DEFAULT now(),
        paid_at timestamptz,
        credited_at timestamptz
      )`);
    await queryRunner.query(`CREATE INDEX payments_user_idx ON payments (user_id, created_at DESC)`);
    await queryRunner.query(`
      CREATE TABLE gift_cards (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        code_hash text NOT NULL,
        amount_micros bigint NOT NULL CHECK (amount_micros > 0),
        created_by uuid REFERENCES users (id) ON DELETE SET NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz,
        redeemed_at timestamptz,
        redeemed_by uuid REFERENCES users (id) ON DELETE SET NULL,
        credited_at timestamptz,
        CONSTRAINT gift_cards_code_hash_key UNIQUE (code_hash)
      )`);
    // Redeemed but not yet credited (an instance died between the two): found by the recovery sweep.
    await queryRunner.query(
      `CREATE INDEX gift_cards_uncredited_idx ON gift_cards (redeemed_at) WHERE redeemed_at IS NOT NULL AND credited_at IS NULL`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE gift_cards`);
    await queryRunner.query(`DROP TABLE payments`);
  }
}
