/**
 * The current text of the SQL functions that move money on a gateway call. Migrations apply frozen copies of these
 * (a migration's text never changes once released); `money-functions.integration-spec.ts` checks that the
 * migrated database runs exactly this text, so a change here without a migration fails the tests.
 */

/**
 * sy_spend: what the calls of one key (`p_key`), or of one app for one user (`p_user`, `p_client`, with `p_key`
 * null), were charged, plus what their open reservations hold, in all and in the UTC day, week and month. Leases
 * count too: what they hold is spend in flight.
 */
export const SY_SPEND = `
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

/**
 * sy_caps: one set of spend caps (a key's, or what a user let an app spend) applied to what a call may hold:
 * `tripped` names the cap that cannot cover the call's minimum (with `p_prefix`: '' for a key's, 'app_' for an
 * app's), else `allowed` is lowered to what every cap leaves. Written once for both.
 */
export const SY_CAPS = `
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

/**
 * sy_reserve: one round trip, one lock order (balance, then the key, then the app's consent), a function rather
 * than a CTE because each of its statements reads the rows as locked, never an older snapshot of them. It holds
 * min(worst, what the account and every cap allow: sy_caps) when that covers at least the minimum (the call's input
 * and one output token), and records the reservation under the server's own call id (`p_id`); `p_request` is the
 * caller's correlation id, never a key.
 */
export const SY_RESERVE = `
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
