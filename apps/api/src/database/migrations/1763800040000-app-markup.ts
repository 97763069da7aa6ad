import { MigrationInterface, QueryRunner } from 'typeorm';
import { OperatorLosses1763800025000 } from './1763800025000-operator-losses';

/**
 * An app's markup (docs/earnings.md): the maker sets `markup_percent` on the app (0 to 300); each consent keeps the
 * markup its user agreed to (a raise applies to a user only once they approve again; a cut lowers every consent
 * at once); each reservation keeps the rate its call was priced at, so a change while a call runs never reprices
 * it. A call drawn on a lease inherits the lease's rate (the trigger below; leases are per rate). sy_reserve takes
 * the rate as `p_markup` (default 0). The function text is a frozen copy of money-functions.ts as of this migration.
 */
export class AppMarkup1763800040000 implements MigrationInterface {
  name = 'AppMarkup1763800040000';

  async up(queryRunner: QueryRunner): Promise<void> {
    for (const table of ['oauth_clients', 'oauth_consents', 'reservations'])
      await queryRunner.query(
        `ALTER TABLE ${table} ADD COLUMN markup_percent integer NOT NULL DEFAULT 0 CHECK (markup_percent BETWEEN 0 AND 300)`,
      );
    await queryRunner.query(AppMarkup1763800040000.leaseRateSql);
    await queryRunner.query(
      `CREATE TRIGGER reservations_lease_rate BEFORE INSERT ON reservations FOR EACH ROW WHEN (NEW.lease_id IS NOT NULL)
       EXECUTE FUNCTION sy_lease_rate()`,
    );
    await queryRunner.query(`DROP FUNCTION sy_reserve`);
    await queryRunner.query(AppMarkup1763800040000.reserveFunctionSql);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP FUNCTION sy_reserve`);
    await queryRunner.query(OperatorLosses1763800025000.reserveFunctionSql);
    await queryRunner.query(`DROP TRIGGER reservations_lease_rate ON reservations`);
    await queryRunner.query(`DROP FUNCTION sy_lease_rate`);
    for (const table of ['oauth_clients', 'oauth_consents', 'reservations'])
      await queryRunner.query(`ALTER TABLE ${table} DROP COLUMN markup_percent`);
  }

  /** A call written against a lease (settleLeased, sy_settle_exact) is priced at its lease's rate. */
  static readonly leaseRateSql = `
      CREATE FUNCTION sy_lease_rate() RETURNS trigger LANGUAGE plpgsql AS $fn$
      BEGIN
        NEW.markup_percent := COALESCE((SELECT markup_percent FROM reservations WHERE id = NEW.lease_id), NEW.markup_percent);
        RETURN NEW;
      END
      $fn$`;

  static readonly reserveFunctionSql = `
      CREATE FUNCTION sy_reserve(p_user uuid, p_worst bigint, p_minimum bigint, p_id uuid, p_request text, p_key uuid,
                                 p_client text, p_input bigint, p_ttl double precision, p_lease boolean,
                                 p_markup integer DEFAULT 0, OUT remaining bigint, OUT amount bigint, OUT tripped text, OUT balance bigint,
                                 OUT headroom bigint)
      LANGUAGE plpgsql AS $fn$
      DECLARE
        caps record;
        allowed bigint;
        room bigint;
      BEGIN
        amount := NULL;
        tripped := NULL;
        SELECT credits_micros - debits_micros - reserved_micros, credits_micros - debits_micros INTO remaining, balance
          FROM balances WHERE user_id = p_user FOR UPDATE;
        remaining := COALESCE(remaining, 0);
        balance := COALESCE(balance, 0);
        IF remaining <= 0 OR remaining < p_minimum THEN
          tripped := 'account';
          RETURN;
        END IF;
        allowed := LEAST(p_worst, remaining);
        headroom := remaining;
        IF p_key IS NOT NULL THEN
          SELECT limit_total_micros AS total, limit_daily_micros AS daily, limit_weekly_micros AS weekly, limit_monthly_micros AS monthly,
                 limit_per_request_micros AS per_request
            INTO caps FROM api_keys WHERE id = p_key FOR UPDATE;
          SELECT c.allowed, c.tripped, c.room INTO allowed, tripped, room
            FROM sy_caps(caps.total, caps.daily, caps.weekly, caps.monthly, caps.per_request, p_key, NULL, NULL, p_minimum, allowed, '') AS c;
          IF tripped IS NOT NULL THEN RETURN; END IF;
          headroom := LEAST(headroom, room);
        END IF;
        IF p_client IS NOT NULL THEN
          SELECT c.limit_total_micros AS total, c.limit_daily_micros AS daily, c.limit_weekly_micros AS weekly, c.limit_monthly_micros AS monthly,
                 c.limit_per_request_micros AS per_request
            INTO caps FROM oauth_consents c JOIN oauth_clients o ON o.id = c.client_pk
           WHERE c.user_id = p_user AND o.client_id = p_client FOR UPDATE OF c;
          SELECT c.allowed, c.tripped, c.room INTO allowed, tripped, room
            FROM sy_caps(caps.total, caps.daily, caps.weekly, caps.monthly, caps.per_request, NULL, p_user, p_client, p_minimum, allowed, 'app_') AS c;
          IF tripped IS NOT NULL THEN RETURN; END IF;
          headroom := LEAST(headroom, room);
        END IF;
        IF allowed <= 0 THEN
          tripped := 'account';
          RETURN;
        END IF;
        amount := allowed;
        headroom := headroom - amount;
        UPDATE balances SET reserved_micros = reserved_micros + amount, updated_at = now() WHERE user_id = p_user;
        INSERT INTO reservations (id, request_id, user_id, api_key_id, oauth_client_id, amount_micros, input_estimate_micros, expires_at, lease,
                                  markup_percent)
        VALUES (p_id, p_request, p_user, p_key, p_client, amount, p_input, now() + make_interval(secs => p_ttl), p_lease,
                CASE WHEN p_client IS NULL THEN 0 ELSE COALESCE(p_markup, 0) END);
      END
      $fn$`;
}
