import { MigrationInterface, QueryRunner } from 'typeorm';

const KINDS_BEFORE = `'signup_credit', 'payment', 'gift_card', 'admin_adjustment', 'usage', 'reversal'`;

/**
 * Earnings in the ledger (docs/earnings.md). Settling a call through an app with a markup writes one row of
 * maker_earnings in the same statement that debits the user (a trigger on reservations: every settlement path,
 * batched, leased, exact or swept, goes through it): what the user paid, split into the provider's cost, the
 * operator's fee (`platform_fee_percent` of the markup) and the maker's earnings; pending until `available_at`
 * (the hold for refunds and disputes). Moving available earnings into the maker's budget marks them moved and
 * credits the maker with one ledger entry of kind `earnings`. earnings_settings holds the operator's fee and hold
 * (PLATFORM_FEE_PERCENT, EARNINGS_HOLD_DAYS), written by the app as it starts.
 */
export class MakerEarnings1763800040100 implements MigrationInterface {
  name = 'MakerEarnings1763800040100';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE ledger_entries DROP CONSTRAINT ledger_entries_kind_check`);
    await queryRunner.query(
      `ALTER TABLE ledger_entries ADD CONSTRAINT ledger_entries_kind_check CHECK (kind IN (${KINDS_BEFORE}, 'earnings'))`,
    );
    await queryRunner.query(`
      CREATE TABLE earnings_settings (
        id boolean PRIMARY KEY DEFAULT true CHECK (id),
        platform_fee_percent integer NOT NULL CHECK (platform_fee_percent BETWEEN 0 AND 100),
        hold_days integer NOT NULL CHECK (hold_days BETWEEN 0 AND 365)
      )`);
    await queryRunner.query(`INSERT INTO earnings_settings (platform_fee_percent, hold_days) VALUES (20, 7)`);
    await queryRunner.query(`
      CREATE TABLE maker_earnings (
        call_id uuid PRIMARY KEY REFERENCES reservations (id) ON DELETE CASCADE,
        maker_id uuid REFERENCES users (id) ON DELETE SET NULL,
        oauth_client_id text NOT NULL,
        user_id uuid NOT NULL,
        markup_percent integer NOT NULL CHECK (markup_percent BETWEEN 1 AND 300),
        fee_percent integer NOT NULL CHECK (fee_percent BETWEEN 0 AND 100),
        paid_micros bigint NOT NULL CHECK (paid_micros > 0),
        provider_micros bigint NOT NULL CHECK (provider_micros >= 0),
        markup_micros bigint NOT NULL CHECK (markup_micros >= 0 AND paid_micros = provider_micros + markup_micros),
        fee_micros bigint NOT NULL CHECK (fee_micros >= 0),
        earnings_micros bigint NOT NULL CHECK (earnings_micros >= 0 AND markup_micros = fee_micros + earnings_micros),
        call_at timestamptz NOT NULL,
        available_at timestamptz NOT NULL,
        moved_at timestamptz,
        move_id uuid,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`CREATE INDEX maker_earnings_maker_idx ON maker_earnings (maker_id, call_at)`);
    await queryRunner.query(MakerEarnings1763800040100.earnFunctionSql);
    await queryRunner.query(
      `CREATE TRIGGER reservations_earn_insert AFTER INSERT ON reservations FOR EACH ROW
       WHEN (NEW.status = 'settled' AND NEW.markup_percent > 0 AND NOT NEW.lease AND NEW.oauth_client_id IS NOT NULL)
       EXECUTE FUNCTION sy_earn()`,
    );
    await queryRunner.query(
      `CREATE TRIGGER reservations_earn_update AFTER UPDATE OF status ON reservations FOR EACH ROW
       WHEN (OLD.status = 'open' AND NEW.status = 'settled' AND NEW.markup_percent > 0 AND NOT NEW.lease
             AND NEW.oauth_client_id IS NOT NULL)
       EXECUTE FUNCTION sy_earn()`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TRIGGER reservations_earn_update ON reservations`);
    await queryRunner.query(`DROP TRIGGER reservations_earn_insert ON reservations`);
    await queryRunner.query(`DROP FUNCTION sy_earn`);
    await queryRunner.query(`DROP TABLE maker_earnings`);
    await queryRunner.query(`DROP TABLE earnings_settings`);
    await queryRunner.query(`DELETE FROM ledger_entries WHERE kind = 'earnings'`);
    await queryRunner.query(`ALTER TABLE ledger_entries DROP CONSTRAINT ledger_entries_kind_check`);
    await queryRunner.query(
      `ALTER TABLE ledger_entries ADD CONSTRAINT ledger_entries_kind_check CHECK (kind IN (${KINDS_BEFORE}))`,
    );
  }

  /**
   * One settled call through an app with a markup: the charge split as markupSplit does (provider part
   * ⌊paid × 100 / (100 + markup)⌋), the maker's earnings ⌊markup × (100 − fee) / 100⌋ and the operator's fee the
   * rest (rounding favours the operator by under one micro-unit). An app without an owner (a dynamic
   * registration) earns nothing: its whole markup is the fee. Once per call (the call's id is the key).
   */
  static readonly earnFunctionSql = `
      CREATE FUNCTION sy_earn() RETURNS trigger LANGUAGE plpgsql AS $fn$
      DECLARE
        fee_percent integer;
        hold integer;
        maker uuid;
        provider bigint;
        markup bigint;
        earned bigint;
      BEGIN
        IF NEW.settled_micros IS NULL OR NEW.settled_micros <= 0 THEN RETURN NULL; END IF;
        SELECT s.platform_fee_percent, s.hold_days INTO fee_percent, hold FROM earnings_settings s WHERE s.id;
        fee_percent := COALESCE(fee_percent, 20);
        hold := COALESCE(hold, 7);
        SELECT owner_id INTO maker FROM oauth_clients WHERE client_id = NEW.oauth_client_id;
        provider := (NEW.settled_micros * 100) / (100 + NEW.markup_percent);
        markup := NEW.settled_micros - provider;
        earned := CASE WHEN maker IS NULL THEN 0 ELSE (markup * (100 - fee_percent)) / 100 END;
        INSERT INTO maker_earnings (call_id, maker_id, oauth_client_id, user_id, markup_percent, fee_percent, paid_micros,
                                    provider_micros, markup_micros, fee_micros, earnings_micros, call_at, available_at)
        VALUES (NEW.id, maker, NEW.oauth_client_id, NEW.user_id, NEW.markup_percent, fee_percent, NEW.settled_micros,
                provider, markup, markup - earned, earned, NEW.created_at, now() + make_interval(days => hold))
        ON CONFLICT (call_id) DO NOTHING;
        RETURN NULL;
      END
      $fn$`;
}
