import { MigrationInterface, QueryRunner } from 'typeorm';
import { Budgets1763800002000 } from './1763800002000-budgets';

/**
 * Spend limits on each API key below the account's budget: a total cap, daily, weekly and monthly caps (UTC
 * calendar windows) and a per-request maximum, all optional, in micro-units. sy_reserve enforces them in the
 * same locked step as the account budget.
 */
export class KeyLimits1763800003000 implements MigrationInterface {
  name = 'KeyLimits1763800003000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE api_keys
        ADD COLUMN limit_total_micros bigint CHECK (limit_total_micros >= 0),
        ADD COLUMN limit_daily_micros bigint CHECK (limit_daily_micros >= 0),
        ADD COLUMN limit_weekly_micros bigint CHECK (limit_weekly_micros >= 0),
        ADD COLUMN limit_monthly_micros bigint CHECK (limit_monthly_micros >= 0),
        ADD COLUMN limit_per_request_micros bigint CHECK (limit_per_request_micros >= 0)`);
    await queryRunner.query(
      `CREATE INDEX reservations_key_created_idx ON reservations (api_key_id, created_at) WHERE api_key_id IS NOT NULL`,
    );
    await queryRunner.query(`DROP FUNCTION sy_reserve`);
    await queryRunner.query(KeyLimits1763800003000.reserveFunctionSql);
  }

  /**
   * As before, plus the key's limits: the key row is locked too, so concurrent calls of one key serialise and
   * its windows' spend (settled amounts, and what open reservations hold) is read as it stands.
   */
  static readonly reserveFunctionSql = KeyLimits1763800003000.reserveFunction();

  /** The function's text; a later migration adds its own declarations and checks (before the amount is held). */
  static reserveFunction(more: { declare?: string; checks?: string } = {}): string {
    return `
      CREATE FUNCTION sy_reserve(p_user uuid, p_worst bigint, p_minimum bigint, p_id uuid, p_request text, p_key uuid,
                                 p_client text, p_input bigint, p_ttl double precision,
                                 OUT remaining bigint, OUT amount bigint, OUT tripped text)
      LANGUAGE plpgsql AS $fn$
      DECLARE
        k record;
        spent record;
        allowed bigint;${more.declare ?? ''}
      BEGIN
        amount := NULL;
        tripped := NULL;
        SELECT credits_micros - debits_micros - reserved_micros INTO remaining FROM balances WHERE user_id = p_user FOR UPDATE;
        remaining := COALESCE(remaining, 0);
        IF remaining <= 0 OR remaining < p_minimum THEN
          tripped := 'account';
          RETURN;
        END IF;
        allowed := LEAST(p_worst, remaining);
        IF p_key IS NOT NULL THEN
          SELECT limit_total_micros, limit_daily_micros, limit_weekly_micros, limit_monthly_micros, limit_per_request_micros
            INTO k FROM api_keys WHERE id = p_key FOR UPDATE;
          IF k.limit_total_micros IS NOT NULL OR k.limit_daily_micros IS NOT NULL OR k.limit_weekly_micros IS NOT NULL OR k.limit_monthly_micros IS NOT NULL THEN
            SELECT
              COALESCE(sum(CASE WHEN status = 'open' THEN amount_micros ELSE settled_micros END), 0) AS total,
              COALESCE(sum(CASE WHEN status = 'open' THEN amount_micros ELSE settled_micros END) FILTER (WHERE created_at >= date_trunc('day', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), 0) AS daily,
              COALESCE(sum(CASE WHEN status = 'open' THEN amount_micros ELSE settled_micros END) FILTER (WHERE created_at >= date_trunc('week', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), 0) AS weekly,
              COALESCE(sum(CASE WHEN status = 'open' THEN amount_micros ELSE settled_micros END) FILTER (WHERE created_at >= date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), 0) AS monthly
              INTO spent FROM reservations WHERE api_key_id = p_key;
            IF k.limit_total_micros IS NOT NULL AND k.limit_total_micros - spent.total < p_minimum THEN tripped := 'total'; RETURN; END IF;
            IF k.limit_daily_micros IS NOT NULL AND k.limit_daily_micros - spent.daily < p_minimum THEN tripped := 'daily'; RETURN; END IF;
            IF k.limit_weekly_micros IS NOT NULL AND k.limit_weekly_micros - spent.weekly < p_minimum THEN tripped := 'weekly'; RETURN; END IF;
            IF k.limit_monthly_micros IS NOT NULL AND k.limit_monthly_micros - spent.monthly < p_minimum THEN tripped := 'monthly'; RETURN; END IF;
            allowed := LEAST(allowed, COALESCE(k.limit_total_micros - spent.total, allowed), COALESCE(k.limit_daily_micros - spent.daily, allowed),
                             COALESCE(k.limit_weekly_micros - spent.weekly, allowed), COALESCE(k.limit_monthly_micros - spent.monthly, allowed));
          END IF;
          IF k.limit_per_request_micros IS NOT NULL THEN
            IF k.limit_per_request_micros < p_minimum THEN tripped := 'per_request'; RETURN; END IF;
            allowed := LEAST(allowed, k.limit_per_request_micros);
          END IF;
        END IF;
${more.checks ?? ''}        IF allowed <= 0 THEN
          tripped := 'account';
          RETURN;
        END IF;
        amount := allowed;
        UPDATE balances SET reserved_micros = reserved_micros + amount, updated_at = now() WHERE user_id = p_user;
        INSERT INTO reservations (id, request_id, user_id, api_key_id, oauth_client_id, amount_micros, input_estimate_micros, expires_at)
        VALUES (p_id, p_request, p_user, p_key, p_client, amount, p_input, now() + make_interval(secs => p_ttl));
      END
      $fn$`;
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX reservations_key_created_idx`);
    await queryRunner.query(`
      ALTER TABLE api_keys DROP COLUMN limit_total_micros, DROP COLUMN limit_daily_micros, DROP COLUMN limit_weekly_micros,
        DROP COLUMN limit_monthly_micros, DROP COLUMN limit_per_request_micros`);
    // The earlier sy_reserve is restored by re-running the budgets migration's definition.
    await queryRunner.query(`DROP FUNCTION sy_reserve`);
    await queryRunner.query(Budgets1763800002000.reserveFunctionSql);
  }
}
