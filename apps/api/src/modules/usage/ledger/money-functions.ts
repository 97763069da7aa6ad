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
 * app's), else `allowed` is lowered to what every cap leaves. `room`: what the windows (total, day, week, month)
 * still leave before this call, the per-request cap apart (null without window caps). Written once for both.
 */
export const SY_CAPS = `
      CREATE FUNCTION sy_caps(p_total bigint, p_daily bigint, p_weekly bigint, p_monthly bigint, p_per_request bigint,
                              p_key uuid, p_user uuid, p_client text, p_minimum bigint, p_allowed bigint, p_prefix text,
                              OUT allowed bigint, OUT tripped text, OUT room bigint)
      LANGUAGE plpgsql AS $fn$
      DECLARE
        spent record;
      BEGIN
        allowed := p_allowed;
        tripped := NULL;
        room := NULL;
        IF p_total IS NOT NULL OR p_daily IS NOT NULL OR p_weekly IS NOT NULL OR p_monthly IS NOT NULL THEN
          SELECT * INTO spent FROM sy_spend(p_key, p_user, p_client);
          IF p_total IS NOT NULL AND p_total - spent.total < p_minimum THEN tripped := p_prefix || 'total'; RETURN; END IF;
          IF p_daily IS NOT NULL AND p_daily - spent.daily < p_minimum THEN tripped := p_prefix || 'daily'; RETURN; END IF;
          IF p_weekly IS NOT NULL AND p_weekly - spent.weekly < p_minimum THEN tripped := p_prefix || 'weekly'; RETURN; END IF;
          IF p_monthly IS NOT NULL AND p_monthly - spent.monthly < p_minimum THEN tripped := p_prefix || 'monthly'; RETURN; END IF;
          room := LEAST(p_total - spent.total, p_daily - spent.daily, p_weekly - spent.weekly, p_monthly - spent.monthly);
          allowed := LEAST(allowed, room);
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
 * caller's correlation id, never a key. Also returns `balance` (credits − debits: what the usage summary shows as
 * remaining) and `headroom`: what the account and the caps' windows still leave once this call holds its amount
 * (a call whose headroom is below its hold settles before its answer ends: ReservationService). `p_markup`: the
 * app's markup the call is priced at (the grant's rate, docs/earnings.md), kept on the reservation for settlement;
 * the amounts are already marked up. Only a call through an app (`p_client`) carries one.
 * Sponsored credits (docs/earnings.md): through an app whose pool is open, the user's allowance left and the pool's
 * money left (both rows locked, after the balance) count as free beside the balance; the call's sponsored part
 * (min(that, its hold)) leaves the pool and is credited to the user (ledger `sponsor`, key `sponsor:<call>`), and the
 * user holds the whole call as always: sy_sponsor_settle gives back what the call did not use. A lease is refused
 * (`sponsored`) while the credential has sponsored money: its calls reserve one by one, each drawing the allowance.
 */
export const SY_RESERVE = `
      CREATE FUNCTION sy_reserve(p_user uuid, p_worst bigint, p_minimum bigint, p_id uuid, p_request text, p_key uuid,
                                 p_client text, p_input bigint, p_ttl double precision, p_lease boolean,
                                 p_markup integer DEFAULT 0, OUT remaining bigint, OUT amount bigint, OUT tripped text, OUT balance bigint,
                                 OUT headroom bigint)
      LANGUAGE plpgsql AS $fn$
      DECLARE
        caps record;
        allowed bigint;
        room bigint;
        sponsor bigint := 0;
        own bigint;
      BEGIN
        amount := NULL;
        tripped := NULL;
        SELECT credits_micros - debits_micros - reserved_micros, credits_micros - debits_micros INTO remaining, balance
          FROM balances WHERE user_id = p_user FOR UPDATE;
        remaining := COALESCE(remaining, 0);
        balance := COALESCE(balance, 0);
        own := GREATEST(remaining, 0);
        IF p_client IS NOT NULL THEN
          SELECT LEAST(p.left_micros, a.allowance_micros - a.drawn_micros) INTO sponsor
            FROM sponsor_pools p JOIN sponsor_allowances a ON a.oauth_client_id = p.oauth_client_id AND a.user_id = p_user
           WHERE p.oauth_client_id = p_client AND p.withdrawn_at IS NULL AND (p.ends_at IS NULL OR p.ends_at > now())
             FOR UPDATE OF p, a;
          sponsor := GREATEST(COALESCE(sponsor, 0), 0);
          IF sponsor > 0 AND p_lease THEN
            tripped := 'sponsored';
            RETURN;
          END IF;
        END IF;
        remaining := own + sponsor;
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
        sponsor := LEAST(sponsor, amount);
        IF sponsor > 0 THEN
          UPDATE sponsor_pools SET left_micros = left_micros - sponsor, drawn_micros = drawn_micros + sponsor, updated_at = now()
           WHERE oauth_client_id = p_client;
          UPDATE sponsor_allowances SET drawn_micros = drawn_micros + sponsor WHERE oauth_client_id = p_client AND user_id = p_user;
          INSERT INTO ledger_entries (user_id, amount_micros, kind, source, idempotency_key)
          VALUES (p_user, sponsor, 'sponsor', p_client, 'sponsor:' || p_id::text);
        END IF;
        UPDATE balances SET credits_micros = credits_micros + sponsor, reserved_micros = reserved_micros + amount, updated_at = now()
         WHERE user_id = p_user;
        IF NOT FOUND THEN
          -- No balance row yet: the sponsor pays all of this hold (own is 0).
          INSERT INTO balances (user_id, credits_micros, reserved_micros) VALUES (p_user, sponsor, amount)
          ON CONFLICT (user_id) DO UPDATE SET credits_micros = balances.credits_micros + sponsor,
                 reserved_micros = balances.reserved_micros + amount, updated_at = now();
        END IF;
        INSERT INTO reservations (id, request_id, user_id, api_key_id, oauth_client_id, amount_micros, input_estimate_micros, expires_at, lease,
                                  markup_percent, sponsor_micros)
        VALUES (p_id, p_request, p_user, p_key, p_client, amount, p_input, now() + make_interval(secs => p_ttl), p_lease,
                CASE WHEN p_client IS NULL THEN 0 ELSE COALESCE(p_markup, 0) END, sponsor);
      END
      $fn$`;

/**
 * sy_spend_at: sy_spend's sums for the windows that hold `p_at` (the UTC day, week from Monday and month of it),
 * each bounded on both sides: what a call made at `p_at` counts against, wherever it settles.
 */
export const SY_SPEND_AT = `
      CREATE FUNCTION sy_spend_at(p_key uuid, p_user uuid, p_client text, p_at timestamptz,
                                  OUT total bigint, OUT daily bigint, OUT weekly bigint, OUT monthly bigint)
      LANGUAGE sql STABLE AS $fn$
        SELECT COALESCE(sum(spend), 0)::bigint,
               COALESCE(sum(spend) FILTER (WHERE created_at >= w.day AT TIME ZONE 'UTC' AND created_at < (w.day + interval '1 day') AT TIME ZONE 'UTC'), 0)::bigint,
               COALESCE(sum(spend) FILTER (WHERE created_at >= w.week AT TIME ZONE 'UTC' AND created_at < (w.week + interval '1 week') AT TIME ZONE 'UTC'), 0)::bigint,
               COALESCE(sum(spend) FILTER (WHERE created_at >= w.month AT TIME ZONE 'UTC' AND created_at < (w.month + interval '1 month') AT TIME ZONE 'UTC'), 0)::bigint
          FROM (SELECT date_trunc('day', p_at AT TIME ZONE 'UTC') AS day, date_trunc('week', p_at AT TIME ZONE 'UTC') AS week,
                       date_trunc('month', p_at AT TIME ZONE 'UTC') AS month) AS w
          LEFT JOIN (SELECT CASE WHEN status = 'open' THEN amount_micros ELSE settled_micros END AS spend, created_at
                       FROM reservations WHERE api_key_id = p_key
                     UNION ALL
                     SELECT CASE WHEN status = 'open' THEN amount_micros ELSE settled_micros END, created_at
                       FROM reservations WHERE p_key IS NULL AND user_id = p_user AND oauth_client_id = p_client) AS calls ON true
      $fn$`;

/**
 * sy_cap_room: what one set of window caps (total, day, week, month; a key's, or what a user let an app spend)
 * still leaves for a call made at `p_at`, counting every charge and hold so far (the call's own hold among them),
 * and which cap that is (`p_prefix` || its name). Null when no window is capped.
 */
export const SY_CAP_ROOM = `
      CREATE FUNCTION sy_cap_room(p_total bigint, p_daily bigint, p_weekly bigint, p_monthly bigint,
                                  p_key uuid, p_user uuid, p_client text, p_at timestamptz, p_prefix text,
                                  OUT room bigint, OUT bound text)
      LANGUAGE plpgsql STABLE AS $fn$
      DECLARE
        spent record;
      BEGIN
        room := NULL;
        bound := NULL;
        IF p_total IS NULL AND p_daily IS NULL AND p_weekly IS NULL AND p_monthly IS NULL THEN RETURN; END IF;
        SELECT * INTO spent FROM sy_spend_at(p_key, p_user, p_client, p_at);
        IF p_total IS NOT NULL THEN room := p_total - spent.total; bound := p_prefix || 'total'; END IF;
        IF p_daily IS NOT NULL AND (room IS NULL OR p_daily - spent.daily < room) THEN
          room := p_daily - spent.daily; bound := p_prefix || 'daily';
        END IF;
        IF p_weekly IS NOT NULL AND (room IS NULL OR p_weekly - spent.weekly < room) THEN
          room := p_weekly - spent.weekly; bound := p_prefix || 'weekly';
        END IF;
        IF p_monthly IS NOT NULL AND (room IS NULL OR p_monthly - spent.monthly < room) THEN
          room := p_monthly - spent.monthly; bound := p_prefix || 'monthly';
        END IF;
      END
      $fn$`;

/**
 * sy_settle_exact: settles one call at exactly its cost when that cost is more than was held for it (the
 * provider reported more than the bound the gateway sent, or a lease's call outgrew its draw), or when a call of a
 * lease can no longer be written against its lease. The balance row is locked, then (as sy_reserve does) the key's
 * and the app consent's. The call is charged its cost, but never more than the tightest of (docs/budgets.md, "The
 * hard-cap guarantee"):
 * - what it held plus what the account has free (so no balance goes below zero);
 * - what it held plus what each window cap of its key (total, day, week, month) still leaves, and the key's
 *   per-request cap (or what it held, if more);
 * - the same for what the user let its app spend (`app_` caps);
 * and what is left of the cost is the operator's loss: a row of operator_losses keyed by the call's id, naming the
 * cap that bound it (`bound`), never dropped. Cases:
 * - an open reservation `p_id`: settled, its hold released, the charge debited;
 * - no reservation `p_id` (a call drawn on a lease, whose hold is the lease's): a settled row is written for it (so
 *   spend windows, activity and reconciliation see it), charged within what is free and what the caps leave, at
 *   its lease's markup rate (docs/earnings.md);
 * - already settled: nothing changes, and what it was charged is returned (a retry is harmless).
 * Returns what the call was charged (debited), what was lost, and the cap that bound the charge.
 */
export const SY_SETTLE_EXACT = `
      CREATE FUNCTION sy_settle_exact(p_id uuid, p_user uuid, p_key uuid, p_client text, p_request text, p_lease uuid,
                                      p_cost bigint, p_reason text, OUT charged bigint, OUT lost bigint, OUT bound text)
      LANGUAGE plpgsql AS $fn$
      DECLARE
        r record;
        held_here boolean;
        caps record;
        cap record;
        free bigint;
        held bigint := 0;
        made timestamptz := now();
        cost bigint := GREATEST(p_cost, 0);
        allowed bigint;
      BEGIN
        lost := 0;
        bound := NULL;
        SELECT credits_micros - debits_micros - reserved_micros INTO free FROM balances WHERE user_id = p_user FOR UPDATE;
        free := GREATEST(COALESCE(free, 0), 0);
        SELECT id, amount_micros, status, settled_micros, created_at INTO r FROM reservations WHERE id = p_id FOR UPDATE;
        held_here := FOUND;
        IF held_here AND r.status <> 'open' THEN
          charged := COALESCE(r.settled_micros, 0);
          RETURN;
        END IF;
        IF held_here THEN
          held := r.amount_micros;
          made := r.created_at;
        END IF;
        allowed := held + free;
        bound := 'account';
        IF p_key IS NOT NULL THEN
          SELECT limit_total_micros AS total, limit_daily_micros AS daily, limit_weekly_micros AS weekly, limit_monthly_micros AS monthly,
                 limit_per_request_micros AS per_request
            INTO caps FROM api_keys WHERE id = p_key FOR UPDATE;
          SELECT * INTO cap FROM sy_cap_room(caps.total, caps.daily, caps.weekly, caps.monthly, p_key, NULL, NULL, made, '');
          IF cap.room IS NOT NULL AND held + GREATEST(cap.room, 0) < allowed THEN
            allowed := held + GREATEST(cap.room, 0);
            bound := cap.bound;
          END IF;
          IF caps.per_request IS NOT NULL AND GREATEST(caps.per_request, held) < allowed THEN
            allowed := GREATEST(caps.per_request, held);
            bound := 'per_request';
          END IF;
        END IF;
        IF p_client IS NOT NULL THEN
          SELECT c.limit_total_micros AS total, c.limit_daily_micros AS daily, c.limit_weekly_micros AS weekly, c.limit_monthly_micros AS monthly,
                 c.limit_per_request_micros AS per_request
            INTO caps FROM oauth_consents c JOIN oauth_clients o ON o.id = c.client_pk
           WHERE c.user_id = p_user AND o.client_id = p_client FOR UPDATE OF c;
          SELECT * INTO cap FROM sy_cap_room(caps.total, caps.daily, caps.weekly, caps.monthly, NULL, p_user, p_client, made, 'app_');
          IF cap.room IS NOT NULL AND held + GREATEST(cap.room, 0) < allowed THEN
            allowed := held + GREATEST(cap.room, 0);
            bound := cap.bound;
          END IF;
          IF caps.per_request IS NOT NULL AND GREATEST(caps.per_request, held) < allowed THEN
            allowed := GREATEST(caps.per_request, held);
            bound := 'app_per_request';
          END IF;
        END IF;
        charged := LEAST(cost, allowed);
        lost := cost - charged;
        IF lost = 0 THEN bound := NULL; END IF;
        IF held_here THEN
          UPDATE reservations SET status = CASE WHEN charged > 0 THEN 'settled' ELSE 'released' END, settled_micros = charged,
                 reason = p_reason, settled_at = now()
           WHERE id = p_id;
          UPDATE balances SET reserved_micros = reserved_micros - held, debits_micros = debits_micros + charged, updated_at = now()
           WHERE user_id = p_user;
        ELSE
          INSERT INTO reservations (id, request_id, user_id, api_key_id, oauth_client_id, amount_micros, input_estimate_micros,
                                    status, settled_micros, reason, expires_at, settled_at, lease_id, markup_percent)
          VALUES (p_id, p_request, p_user, p_key, p_client, charged, 0, CASE WHEN charged > 0 THEN 'settled' ELSE 'released' END,
                  charged, p_reason, now(), now(), p_lease,
                  COALESCE((SELECT l.markup_percent FROM reservations l WHERE l.id = p_lease), 0));
          UPDATE balances SET debits_micros = debits_micros + charged, updated_at = now() WHERE user_id = p_user;
        END IF;
        IF charged > 0 THEN
          INSERT INTO ledger_entries (user_id, amount_micros, kind, source, idempotency_key)
          VALUES (p_user, -charged, 'usage', p_id::text, 'usage:' || p_id::text);
        END IF;
        IF lost > 0 THEN
          INSERT INTO operator_losses (call_id, user_id, api_key_id, oauth_client_id, cost_micros, charged_micros, lost_micros, bound, reason)
          VALUES (p_id, p_user, p_key, p_client, cost, charged, lost, bound, p_reason);
        END IF;
      END
      $fn$`;

/**
 * sy_earn (AFTER INSERT and AFTER UPDATE OF status triggers on reservations, when a call through a marked-up app
 * becomes settled; never a lease): the maker's earnings row, in the statement that settles the call
 * (docs/earnings.md). The charge splits as markupSplit does (provider part ⌊paid × 100 / (100 + markup)⌋), the
 * maker's earnings are ⌊markup × (100 − fee) / 100⌋ and the operator's fee the rest; an app without an owner earns
 * nothing (its whole markup is the fee). Pending until now + the hold (earnings_settings). Once per call.
 */
export const SY_EARN = `
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
