/**
 * The current text of the SQL functions that move money on a gateway call. Migrations apply frozen copies of these
 * (a migration's text never changes once released); `money-functions.integration-spec.ts` checks that the
 * migrated database runs exactly this text, so a change here without a migration fails the tests.
 *
 * sy_reserve: one round trip, one lock order (balance, then the key, then the app's consent), a function rather
 * than a CTE because each of its statements reads the rows as locked, never an older snapshot of them. It holds
 * min(worst, what the account and every limit allow) when that covers at least the minimum (the call's input and
 * one output token), and records the reservation under the server's own call id (`p_id`); `p_request` is the
 * caller's correlation id, never a key. Spend windows count what settled calls were charged plus what open
 * reservations hold (leases included: what they hold is spend in flight).
 */
export const SY_RESERVE = `
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

/**
 * sy_settle_exact: settles one call at exactly its cost when that cost is more than was held for it (the
 * provider reported more than the bound the gateway sent, or a lease's call outgrew its draw), or when a call of a
 * lease can no longer be written against its lease. The balance row is locked; the call is charged
 * min(cost, what it held + what the account has free), so no balance goes below zero:
 * - an open reservation `p_id`: settled, its hold released, the charge debited;
 * - no reservation `p_id` (a call drawn on a lease): a settled row is written for it (so spend windows, activity and
 *   reconciliation see it), charged min(cost, free);
 * - already settled: nothing changes, and what it was charged is returned (a retry is harmless).
 * Returns what the call was charged (debited).
 */
export const SY_SETTLE_EXACT = `
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
