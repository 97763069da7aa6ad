/**
 * The current text of the SQL functions of sponsored credits (docs/earnings.md, "Sponsored credits"); the draw
 * itself is in sy_reserve (money-functions.ts). As there, migrations apply frozen copies and
 * `money-functions.integration-spec.ts` checks that the database runs exactly this text.
 */

/**
 * sy_sponsor_allowance (AFTER INSERT on oauth_consents): a user who consents to an app while its pool is open (not
 * withdrawn, before its end) gets the pool's allowance per user, once per user and app (a consent revoked and given
 * again gets none more).
 */
export const SY_SPONSOR_ALLOWANCE = `
      CREATE FUNCTION sy_sponsor_allowance() RETURNS trigger LANGUAGE plpgsql AS $fn$
      BEGIN
        INSERT INTO sponsor_allowances (oauth_client_id, user_id, allowance_micros)
        SELECT p.oauth_client_id, NEW.user_id, p.allowance_micros
          FROM sponsor_pools p JOIN oauth_clients o ON o.client_id = p.oauth_client_id
         WHERE o.id = NEW.client_pk AND p.withdrawn_at IS NULL AND (p.ends_at IS NULL OR p.ends_at > now())
        ON CONFLICT (oauth_client_id, user_id) DO NOTHING;
        RETURN NULL;
      END
      $fn$`;

/**
 * sy_sponsor_settle (AFTER UPDATE OF status on reservations, a call with a sponsored part leaving `open`, by any
 * settlement path): the sponsor pays min(charge, sponsored part); the rest goes back to the pool and the allowance,
 * and is taken back from the user's credit as a debit (ledger `sponsor`, negative, key `sponsor-return:<call>`).
 */
export const SY_SPONSOR_SETTLE = `
      CREATE FUNCTION sy_sponsor_settle() RETURNS trigger LANGUAGE plpgsql AS $fn$
      DECLARE
        back bigint := NEW.sponsor_micros - LEAST(GREATEST(COALESCE(NEW.settled_micros, 0), 0), NEW.sponsor_micros);
      BEGIN
        IF back <= 0 THEN RETURN NULL; END IF;
        UPDATE sponsor_pools SET left_micros = left_micros + back, drawn_micros = drawn_micros - back, updated_at = now()
         WHERE oauth_client_id = NEW.oauth_client_id;
        UPDATE sponsor_allowances SET drawn_micros = drawn_micros - back
         WHERE oauth_client_id = NEW.oauth_client_id AND user_id = NEW.user_id;
        UPDATE balances SET debits_micros = debits_micros + back, updated_at = now() WHERE user_id = NEW.user_id;
        INSERT INTO ledger_entries (user_id, amount_micros, kind, source, idempotency_key)
        VALUES (NEW.user_id, -back, 'sponsor', NEW.oauth_client_id, 'sponsor-return:' || NEW.id::text);
        RETURN NULL;
      END
      $fn$`;

/**
 * sy_sponsor_fund: the maker's balance (locked first, as everywhere) pays `p_amount` into the app's pool (ledger
 * `sponsor_fund`, key `sponsor-fund:<p_move>`), and the pool's allowance per user and end are set (a withdrawn pool
 * opens again). `outcome`: 'ok', 'balance' (the free balance cannot pay it; nothing changes) or 'owner' (the pool is
 * another maker's).
 */
export const SY_SPONSOR_FUND = `
      CREATE FUNCTION sy_sponsor_fund(p_maker uuid, p_client text, p_amount bigint, p_allowance bigint, p_ends timestamptz,
                                      p_move uuid, OUT outcome text)
      LANGUAGE plpgsql AS $fn$
      DECLARE
        free bigint;
        owner uuid;
      BEGIN
        SELECT credits_micros - debits_micros - reserved_micros INTO free FROM balances WHERE user_id = p_maker FOR UPDATE;
        IF p_amount > 0 AND COALESCE(free, 0) < p_amount THEN
          outcome := 'balance';
          RETURN;
        END IF;
        INSERT INTO sponsor_pools (oauth_client_id, maker_id, funded_micros, left_micros, allowance_micros, ends_at)
        VALUES (p_client, p_maker, p_amount, p_amount, p_allowance, p_ends)
        ON CONFLICT (oauth_client_id) DO UPDATE SET funded_micros = sponsor_pools.funded_micros + EXCLUDED.funded_micros,
               left_micros = sponsor_pools.left_micros + EXCLUDED.left_micros, allowance_micros = EXCLUDED.allowance_micros,
               ends_at = EXCLUDED.ends_at, withdrawn_at = NULL, updated_at = now()
         WHERE sponsor_pools.maker_id = p_maker
        RETURNING maker_id INTO owner;
        IF owner IS NULL THEN
          outcome := 'owner';
          RETURN;
        END IF;
        IF p_amount > 0 THEN
          UPDATE balances SET debits_micros = debits_micros + p_amount, updated_at = now() WHERE user_id = p_maker;
          INSERT INTO ledger_entries (user_id, amount_micros, kind, source, idempotency_key)
          VALUES (p_maker, -p_amount, 'sponsor_fund', p_client, 'sponsor-fund:' || p_move::text);
        END IF;
        outcome := 'ok';
      END
      $fn$`;

/**
 * sy_sponsor_take_back: what is left of the pool goes back into the maker's balance (ledger `sponsor_back`), and the
 * pool is withdrawn (no more draws; calls in flight still give back what they did not use, to take back again).
 * `taken` is null without a pool.
 */
export const SY_SPONSOR_TAKE_BACK = `
      CREATE FUNCTION sy_sponsor_take_back(p_client text, p_move uuid, OUT taken bigint)
      LANGUAGE plpgsql AS $fn$
      DECLARE
        maker uuid;
      BEGIN
        SELECT maker_id INTO maker FROM sponsor_pools WHERE oauth_client_id = p_client;
        IF NOT FOUND THEN
          taken := NULL;
          RETURN;
        END IF;
        PERFORM 1 FROM balances WHERE user_id = maker FOR UPDATE;
        SELECT left_micros INTO taken FROM sponsor_pools WHERE oauth_client_id = p_client FOR UPDATE;
        UPDATE sponsor_pools SET taken_back_micros = taken_back_micros + taken, left_micros = 0,
               withdrawn_at = COALESCE(withdrawn_at, now()), updated_at = now()
         WHERE oauth_client_id = p_client;
        IF taken > 0 THEN
          INSERT INTO balances (user_id, credits_micros) VALUES (maker, taken)
          ON CONFLICT (user_id) DO UPDATE SET credits_micros = balances.credits_micros + taken, updated_at = now();
          INSERT INTO ledger_entries (user_id, amount_micros, kind, source, idempotency_key)
          VALUES (maker, taken, 'sponsor_back', p_client, 'sponsor-back:' || p_move::text);
        END IF;
      END
      $fn$`;

/** sy_sponsor_close (BEFORE DELETE on oauth_clients): a deleted app's pool is taken back first. */
export const SY_SPONSOR_CLOSE = `
      CREATE FUNCTION sy_sponsor_close() RETURNS trigger LANGUAGE plpgsql AS $fn$
      BEGIN
        PERFORM sy_sponsor_take_back(OLD.client_id, gen_random_uuid());
        RETURN OLD;
      END
      $fn$`;
