import { MigrationInterface, QueryRunner } from 'typeorm';
import { MoneyKeys1763800009000 } from './1763800009000-money-keys';

/**
 * Each spend-cap check written once: sy_reserve applies a key's caps and what a user let an app spend through
 * one function, sy_caps, over one spend query, sy_spend (it wrote the same checks twice). Behaviour unchanged.
 * Frozen copies of modules/usage/ledger/money-functions.ts as of this migration.
 */
export class SpendCaps1763800015000 implements MigrationInterface {
  name = 'SpendCaps1763800015000';

  static readonly spendFunctionSql = `
      CREATE FUNCTION sy_spend(p_key uuid, p_user uuid, p_client text,
                               OUT total bigint, OUT daily bigint, OUT weekly bigint, OUT monthly bigint)
      LANGUAGE sql STABLE AS $fn$
        SELECT COALESCE(sum(spend), 0)::bigint,
               COALESCE(sum(spend) FILTER (WHERE created_at >= date_trunc('day', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), 0)::bigint,
               COALESCE(sum(spend) FILTER (WHERE created_at >= date_trunc('week', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), 0)::bigint,
               COALESCE(sum(spend) FILTER (WHERE created_at >= date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), 0)::bigint
          FROM (SELECT CASE WHEN status = 'open' THEN amount_micros ELSE settled_micros END AS spend, created_at
                  FROM reservations WHERE api_key_id = p_key
                UNION ALL
                SELECT CASE WHEN status = 'open' THEN amount_micros ELSE settled_micros END, created_at
                  FROM reservations WHERE p_key IS NULL AND user_id = p_user AND oauth_client_id = p_client) AS calls
      $fn$`;

  static readonly capsFunctionSql = `
      CREATE FUNCTION sy_caps(p_total bigint, p_daily bigint, p_weekly bigint, p_monthly bigint, p_per_request bigint,
                              p_key uuid, p_user uuid, p_client text, p_minimum bigint, p_allowed bigint, p_prefix text,
                              OUT allowed bigint, OUT tripped text)
      LANGUAGE plpgsql AS $fn$
      DECLARE
        spent record;
      BEGIN
        allowed := p_allowed;
        tripped := NULL;
        IF p_total IS NOT NULL OR p_daily IS NOT NULL OR p_weekly IS NOT NULL OR p_monthly IS NOT NULL THEN
          SELECT * INTO spent FROM sy_spend(p_key, p_user, p_client);
          IF p_total IS NOT NULL AND p_total - spent.total < p_minimum THEN tripped := p_prefix || 'total'; RETURN; END IF;
          IF p_daily IS NOT NULL AND p_daily - spent.daily < p_minimum THEN tripped := p_prefix || 'daily'; RETURN; END IF;
          IF p_weekly IS NOT NULL AND p_weekly - spent.weekly < p_minimum THEN tripped := p_prefix || 'weekly'; RETURN; END IF;
          IF p_monthly IS NOT NULL AND p_monthly - spent.monthly < p_minimum THEN tripped := p_prefix || 'monthly'; RETURN; END IF;
          allowed := LEAST(allowed, COALESCE(p_total - spent.total, allowed), COALESCE(p_daily - spent.daily, allowed),
                           COALESCE(p_weekly - spent.weekly, allowed), COALESCE(p_monthly - spent.monthly, allowed));
        END IF;
        IF p_per_request IS NOT NULL THEN
          IF p_per_request < p_minimum THEN tripped := p_prefix || 'per_request'; RETURN; END IF;
          allowed := LEAST(allowed, p_per_request);
        END IF;
      END
      $fn$`;

  static readonly reserveFunctionSql = `
      CREATE FUNCTION sy_reserve(p_user uuid, p_worst bigint, p_minimum bigint, p_id uuid, p_request text, p_key uuid,
                                 p_client text, p_input bigint, p_ttl double precision, p_lease boolean,
                                 OUT remaining bigint, OUT amount bigint, OUT tripped text)
      LANGUAGE plpgsql AS $fn$
      DECLARE
        caps record;
        allowed bigint;
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
          SELECT limit_total_micros AS total, limit_daily_micros AS daily, limit_weekly_micros AS weekly, limit_monthly_micros AS monthly,
                 limit_per_request_micros AS per_request
            INTO caps FROM api_keys WHERE id = p_key FOR UPDATE;
          SELECT c.allowed, c.tripped INTO allowed, tripped
            FROM sy_caps(caps.total, caps.daily, caps.weekly, caps.monthly, caps.per_request, p_key, NULL, NULL, p_minimum, allowed, '') AS c;
          IF tripped IS NOT NULL THEN RETURN; END IF;
        END IF;
        IF p_client IS NOT NULL THEN
          SELECT c.limit_total_micros AS total, c.limit_daily_micros AS daily, c.limit_weekly_micros AS weekly, c.limit_monthly_micros AS monthly,
                 c.limit_per_request_micros AS per_request
            INTO caps FROM oauth_consents c JOIN oauth_clients o ON o.id = c.client_pk
           WHERE c.user_id = p_user AND o.client_id = p_client FOR UPDATE OF c;
          SELECT c.allowed, c.tripped INTO allowed, tripped
            FROM sy_caps(caps.total, caps.daily, caps.weekly, caps.monthly, caps.per_request, NULL, p_user, p_client, p_minimum, allowed, 'app_') AS c;
          IF tripped IS NOT NULL THEN RETURN; END IF;
        END IF;
        IF allowed <= 0 THEN
          tripped := 'account';
          RETURN;
        END IF;
        amount := allowed;
        UPDATE balances SET reserved_micros = reserved_micros + amount, updated_at = now() WHERE user_id = p_user;
        INSERT INTO reservations (id, request_id, user_id, api_key_id, oauth_client_id, amount_micros, input_estimate_micros, expires_at, lease)
        VALUES (p_id, p_request, p_user, p_key, p_client, amount, p_input, now() + make_interval(secs => p_ttl), p_lease);
      END
      $fn$`;

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(SpendCaps1763800015000.spendFunctionSql);
    await queryRunner.query(SpendCaps1763800015000.capsFunctionSql);
    await queryRunner.query(`DROP FUNCTION sy_reserve`);
    await queryRunner.query(SpendCaps1763800015000.reserveFunctionSql);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP FUNCTION sy_reserve`);
    await queryRunner.query(MoneyKeys1763800009000.reserveFunctionSql);
    await queryRunner.query(`DROP FUNCTION sy_caps`);
    await queryRunner.query(`DROP FUNCTION sy_spend`);
  }
}
