import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The money ledger (append-only, integer micro-units), the balance kept in step with it in the same statement,
 * and reservations: the worst-case cost of a call held against the balance until the call settles.
 */
export class Budgets1763800002000 implements MigrationInterface {
  name = 'Budgets1763800002000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE ledger_entries (
        id bigserial PRIMARY KEY,
        user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        amount_micros bigint NOT NULL CHECK (amount_micros <> 0),
        kind text NOT NULL CHECK (kind IN ('signup_credit', 'payment', 'gift_card', 'admin_adjustment', 'usage', 'reversal')),
        source text,
        idempotency_key text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT ledger_entries_idempotency_key_key UNIQUE (idempotency_key)
      )`);
    await queryRunner.query(`CREATE INDEX ledger_entries_user_idx ON ledger_entries (user_id, created_at DESC)`);
    await queryRunner.query(`
      CREATE TABLE balances (
        user_id uuid PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
        credits_micros bigint NOT NULL DEFAULT 0 CHECK (credits_micros >= 0),
        debits_micros bigint NOT NULL DEFAULT 0 CHECK (debits_micros >= 0),
        reserved_micros bigint NOT NULL DEFAULT 0 CHECK (reserved_micros >= 0),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT balances_never_overspent CHECK (credits_micros - debits_micros - reserved_micros >= 0)
      )`);
    await queryRunner.query(`
      CREATE TABLE reservations (
        id uuid PRIMARY KEY,
        request_id text NOT NULL,
        user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        api_key_id uuid,
        oauth_client_id text,
        amount_micros bigint NOT NULL CHECK (amount_micros >= 0),
        input_estimate_micros bigint NOT NULL DEFAULT 0,
        status text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'settled', 'released')),
        settled_micros bigint,
        reason text,
        created_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL,
        settled_at timestamptz,
        CONSTRAINT reservations_request_id_key UNIQUE (request_id)
      )`);
    await queryRunner.query(`CREATE INDEX reservations_open_idx ON reservations (expires_at) WHERE status = 'open'`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE reservations`);
    await queryRunner.query(`DROP TABLE balances`);
    await queryRunner.query(`DROP TABLE ledger_entries`);
  }
}
