import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The money ledger (append-only, integer micro-units), the balance kept in step with it in the same statement,
 * and reservations: the worst-case cost of a call held against the balance until the call settles.
 */
export class Budgets1763800002000 implements MigrationInterface {
  name = 'Budgets1763800002000';

  static readonly reserveFunctionSql = `
      CREATE FUNCTION sy_reserve(p_user uuid, p_worst bigint, p_minimum bigint, p_id uuid, p_request text, p_key uuid,
                                 p_client text, p_input bigint, p_ttl double precision,
                                 OUT remaining bigint, OUT amount bigint)
      LANGUAGE plpgsql AS $fn$
      BEGIN
        SELECT credits_micros - debits_micros - reserved_micros INTO remaining FROM balances WHERE user_id = p_user FOR UPDATE;
        remaining := COALESCE(remaining, 0);
        amount := NULL;
        IF remaining <= 0 OR remaining < p_minimum THEN
          RETURN;
        END IF;
        amount := LEAST(p_worst, remaining);
        UPDATE balances SET reserved_micros = reserved_micros + amount, updated_at = now() WHERE user_id = p_user;
        INSERT INTO reservations (id, request_id, user_id, api_key_id, oauth_client_id, amount_micros, input_estimate_micros, expires_at)
        VALUES (p_id, p_request, p_user, p_key, p_client, amount, p_input, now() + make_interval(secs => p_ttl));
      END
      $fn$`;

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
    // One round trip, one lock: read the balance under FOR UPDATE, hold min(worst, remaining) when the remaining
    // balance covers the minimum, and record the reservation. A function rather than a CTE, because each of its
    // statements reads the row as locked, never an older snapshot of it.
    await queryRunner.query(Budgets1763800002000.reserveFunctionSql);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP FUNCTION sy_reserve`);
    await queryRunner.query(`DROP TABLE reservations`);
    await queryRunner.query(`DROP TABLE balances`);
    await queryRunner.query(`DROP TABLE ledger_entries`);
  }
}
