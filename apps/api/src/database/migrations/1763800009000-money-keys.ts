import { MigrationInterface, QueryRunner } from 'typeorm';
import { OAuth1763800004000 } from './1763800004000-oauth';

/**
 * The server's own money keys (docs/budgets.md, "Call ids"). A caller-chosen X-Request-Id used to key the
 * reservation, the ledger debit and the usage record, so a repeated one failed whole settlement batches and could
 * be pre-claimed by another tenant. Now every call has a random id of the server's (a UUID, 122 random bits):
 * - reservations: `id` is the call id; `request_id` is only the caller's correlation id (nullable, not unique);
 *   leases are marked by `lease` (they used a `lease:` request id), and a call drawn on a lease names it in `lease_id`;
 * - usage_records: `call_id`, unique with started_at (the partition key); `request_id` is no longer unique;
 * - ledger debits of calls are keyed `usage:<call id>` from now on (older ones keep their request ids);
 * - sy_reserve takes `p_lease`; sy_settle_exact charges a call more than it held, from the free balance.
 * The function texts below are frozen copies of modules/usage/ledger/money-functions.ts as of this migration.
 */
export class MoneyKeys1763800009000 implements MigrationInterface {
  name = 'MoneyKeys1763800009000';

  async up(queryRunner: QueryRunner): Promise<void> {
    // Usage records take their reservation's id as call id where there is one (found by the old unique request
    // id, while it is still indexed), else a fresh one.
    await queryRunner.query(`ALTER TABLE usage_records ADD COLUMN call_id uuid`);
    await queryRunner.query(`
      UPDATE usage_records u SET call_id = COALESCE(
        (SELECT r.id FROM reservations r WHERE r.request_id = u.request_id AND r.user_id = u.user_id), gen_random_uuid())`);
    await queryRunner.query(`ALTER TABLE usage_records ALTER COLUMN call_id SET NOT NULL`);
    await queryRunner.query(`ALTER TABLE usage_records DROP CONSTRAINT usage_records_request_id_key`);
    await queryRunner.query(
      `ALTER TABLE usage_records ADD CONSTRAINT usage_records_call_id_key UNIQUE (call_id, started_at)`,
    );

    await queryRunner.query(
      `ALTER TABLE reservations ADD COLUMN lease boolean NOT NULL DEFAULT false, ADD COLUMN lease_id uuid`,
    );
    await queryRunner.query(`UPDATE reservations SET lease = true, request_id = NULL WHERE request_id LIKE 'lease:%'`);
    await queryRunner.query(`ALTER TABLE reservations DROP CONSTRAINT reservations_request_id_key`);
    await queryRunner.query(`ALTER TABLE reservations ALTER COLUMN request_id DROP NOT NULL`);
    // The activity's money trace and reconciliation read a user's reservations.
    await queryRunner.query(`CREATE INDEX reservations_user_created_idx ON reservations (user_id, created_at)`);

    await queryRunner.query(`DROP FUNCTION sy_reserve`);
    await queryRunner.query(MoneyKeys1763800009000.reserveFunctionSql);
    await queryRunner.query(MoneyKeys1763800009000.settleExactFunctionSql);
  }

  static readonly reserveFunctionSql = `
      CREATE FUNCTION sy_reserve(p_user uuid, p_worst bigint, p_minimum bigint, p_id uuid, p_request text, p_key uuid,
                                 p_client text, p_input bigint, p_ttl double precision, p_lease boolean,
                                 OUT remaining bigint, OUT amount bigint, OUT tripped text)
      LANGUAGE plpgsql AS $fn$
      DECLARE
        k record;
        spent record;
        allowed bigint;
        a record;
        app_spent record;
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
        IF p_client IS NOT NULL THEN
          SELECT c.limit_total_micros, c.limit_daily_micros, c.limit_weekly_micros, c.limit_monthly_micros, c.limit_per_request_micros INTO a
            FROM oauth_consents c JOIN oauth_clients o ON o.id = c.client_pk
           WHERE c.user_id = p_user AND o.client_id = p_client FOR UPDATE OF c;
          IF a.limit_total_micros IS NOT NULL OR a.limit_daily_micros IS NOT NULL OR a.limit_weekly_micros IS NOT NULL OR a.limit_monthly_micros IS NOT NULL THEN
            SELECT
              COALESCE(sum(CASE WHEN status = 'open' THEN amount_micros ELSE settled_micros END), 0) AS total,
              COALESCE(sum(CASE WHEN status = 'open' THEN amount_micros ELSE settled_micros END) FILTER (WHERE created_at >= date_trunc('day', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), 0) AS daily,
              COALESCE(sum(CASE WHEN status = 'open' THEN amount_micros ELSE settled_micros END) FILTER (WHERE created_at >= date_trunc('week', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), 0) AS weekly,
              COALESCE(sum(CASE WHEN status = 'open' THEN amount_micros ELSE settled_micros END) FILTER (WHERE created_at >= date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), 0) AS monthly
              INTO app_spent FROM reservations WHERE user_id = p_user AND oauth_client_id = p_client;
            IF a.limit_total_micros IS NOT NULL AND a.limit_total_micros - app_spent.total < p_minimum THEN tripped := 'app_total'; RETURN; END IF;
            IF a.limit_daily_micros IS NOT NULL AND a.limit_daily_micros - app_spent.daily < p_minimum THEN tripped := 'app_daily'; RETURN; END IF;
            IF a.limit_weekly_micros IS NOT NULL AND a.limit_weekly_micros - app_spent.weekly < p_minimum THEN tripped := 'app_weekly'; RETURN; END IF;
            IF a.limit_monthly_micros IS NOT NULL AND a.limit_monthly_micros - app_spent.monthly < p_minimum THEN tripped := 'app_monthly'; RETURN; END IF;
            allowed := LEAST(allowed, COALESCE(a.limit_total_micros - app_spent.total, allowed), COALESCE(a.limit_daily_micros - app_spent.daily, allowed),
                             COALESCE(a.limit_weekly_micros - app_spent.weekly, allowed), COALESCE(a.limit_monthly_micros - app_spent.monthly, allowed));
          END IF;
          IF a.limit_per_request_micros IS NOT NULL THEN
            IF a.limit_per_request_micros < p_minimum THEN tripped := 'app_per_request'; RETURN; END IF;
            allowed := LEAST(allowed, a.limit_per_request_micros);
          END IF;
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

  static readonly settleExactFunctionSql = `
      CREATE FUNCTION sy_settle_exact(p_id uuid, p_user uuid, p_key uuid, p_client text, p_request text, p_lease uuid,
                                      p_cost bigint, p_reason text, OUT charged bigint)
      LANGUAGE plpgsql AS $fn$
      DECLARE
        r record;
        free bigint;
      BEGIN
        SELECT credits_micros - debits_micros - reserved_micros INTO free FROM balances WHERE user_id = p_user FOR UPDATE;
        free := GREATEST(COALESCE(free, 0), 0);
        SELECT id, amount_micros, status, settled_micros INTO r FROM reservations WHERE id = p_id FOR UPDATE;
        IF FOUND AND r.status <> 'open' THEN
          charged := COALESCE(r.settled_micros, 0);
          RETURN;
        END IF;
        IF FOUND THEN
          charged := LEAST(GREATEST(p_cost, 0), r.amount_micros + free);
          UPDATE reservations SET status = CASE WHEN charged > 0 THEN 'settled' ELSE 'released' END, settled_micros = charged,
                 reason = p_reason, settled_at = now()
           WHERE id = p_id;
          UPDATE balances SET reserved_micros = reserved_micros - r.amount_micros, debits_micros = debits_micros + charged, updated_at = now()
           WHERE user_id = p_user;
        ELSE
          charged := LEAST(GREATEST(p_cost, 0), free);
          INSERT INTO reservations (id, request_id, user_id, api_key_id, oauth_client_id, amount_micros, input_estimate_micros,
                                    status, settled_micros, reason, expires_at, settled_at, lease_id)
          VALUES (p_id, p_request, p_user, p_key, p_client, charged, 0, CASE WHEN charged > 0 THEN 'settled' ELSE 'released' END,
                  charged, p_reason, now(), now(), p_lease);
          UPDATE balances SET debits_micros = debits_micros + charged, updated_at = now() WHERE user_id = p_user;
        END IF;
        IF charged > 0 THEN
          INSERT INTO ledger_entries (user_id, amount_micros, kind, source, idempotency_key)
          VALUES (p_user, -charged, 'usage', p_id::text, 'usage:' || p_id::text);
        END IF;
      END
      $fn$`;

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP FUNCTION sy_settle_exact`);
    await queryRunner.query(`DROP FUNCTION sy_reserve`);
    await queryRunner.query(OAuth1763800004000.reserveFunctionSql);
    await queryRunner.query(`DROP INDEX reservations_user_created_idx`);
    // Lease rows get their request ids back; caller ids repeated since cannot be unique again, so those are
    // suffixed with the call id.
    await queryRunner.query(`UPDATE reservations SET request_id = 'lease:' || id WHERE lease`);
    await queryRunner.query(`
      UPDATE reservations r SET request_id = COALESCE(r.request_id, 'call') || ':' || r.id
       WHERE r.request_id IS NULL OR EXISTS (SELECT 1 FROM reservations o WHERE o.request_id = r.request_id AND o.id <> r.id)`);
    await queryRunner.query(`ALTER TABLE reservations ALTER COLUMN request_id SET NOT NULL`);
    await queryRunner.query(`ALTER TABLE reservations ADD CONSTRAINT reservations_request_id_key UNIQUE (request_id)`);
    await queryRunner.query(`ALTER TABLE reservations DROP COLUMN lease, DROP COLUMN lease_id`);
    await queryRunner.query(`ALTER TABLE usage_records DROP CONSTRAINT usage_records_call_id_key`);
    await queryRunner.query(`
      UPDATE usage_records u SET request_id = u.request_id || ':' || u.call_id
       WHERE EXISTS (SELECT 1 FROM usage_records o WHERE o.request_id = u.request_id AND o.started_at = u.started_at AND o.call_id <> u.call_id)`);
    await queryRunner.query(
      `ALTER TABLE usage_records ADD CONSTRAINT usage_records_request_id_key UNIQUE (request_id, started_at)`,
    );
    await queryRunner.query(`ALTER TABLE usage_records DROP COLUMN call_id`);
  }
}
