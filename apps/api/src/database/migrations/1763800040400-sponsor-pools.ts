import { MigrationInterface, QueryRunner } from 'typeorm';
import { AppMarkup1763800040000 } from './1763800040000-app-markup';

const KINDS_BEFORE = `'signup_credit', 'payment', 'gift_card', 'admin_adjustment', 'usage', 'reversal', 'earnings', 'refund'`;

/**
 * Sponsored credits (docs/earnings.md, "Sponsored credits"): a maker funds a pool for an app from their balance
 * (ledger `sponsor_fund`), each user who consents while the pool is open gets an allowance
 * (sponsor_allowances, written by a trigger on oauth_consents: once per user and app), and sy_reserve holds a call's
 * sponsored part from the pool: the pool's `left` goes down, the user is credited that part (ledger `sponsor`,
 * key `sponsor:<call>`) and holds the whole call as always. When the call settles (any path: the status change),
 * the part the call did not use goes back to the pool (ledger `sponsor`, negative, key `sponsor-return:<call>`), so
 * the sponsor pays min(charge, sponsored hold). A pool's row keeps funded = drawn + left + taken back (a check).
 * The function texts are frozen copies of money-functions.ts as of this migration.
 */
export class SponsorPools1763800040400 implements MigrationInterface {
  name = 'SponsorPools1763800040400';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE ledger_entries DROP CONSTRAINT ledger_entries_kind_check`);
    await queryRunner.query(
      `ALTER TABLE ledger_entries ADD CONSTRAINT ledger_entries_kind_check
       CHECK (kind IN (${KINDS_BEFORE}, 'sponsor_fund', 'sponsor_back', 'sponsor'))`,
    );
    await queryRunner.query(`
      CREATE TABLE sponsor_pools (
        oauth_client_id text PRIMARY KEY,
        maker_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        funded_micros bigint NOT NULL DEFAULT 0 CHECK (funded_micros >= 0),
        left_micros bigint NOT NULL DEFAULT 0 CHECK (left_micros >= 0),
        drawn_micros bigint NOT NULL DEFAULT 0 CHECK (drawn_micros >= 0),
        taken_back_micros bigint NOT NULL DEFAULT 0 CHECK (taken_back_micros >= 0),
        allowance_micros bigint NOT NULL CHECK (allowance_micros > 0),
        ends_at timestamptz,
        withdrawn_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT sponsor_pools_balanced CHECK (funded_micros = drawn_micros + left_micros + taken_back_micros)
      )`);
    await queryRunner.query(`
      CREATE TABLE sponsor_allowances (
        oauth_client_id text NOT NULL REFERENCES sponsor_pools (oauth_client_id) ON DELETE CASCADE,
        user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        allowance_micros bigint NOT NULL CHECK (allowance_micros > 0),
        drawn_micros bigint NOT NULL DEFAULT 0 CHECK (drawn_micros >= 0 AND drawn_micros <= allowance_micros),
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (oauth_client_id, user_id)
      )`);
    await queryRunner.query(
      `ALTER TABLE reservations ADD COLUMN sponsor_micros bigint NOT NULL DEFAULT 0 CHECK (sponsor_micros >= 0)`,
    );
    await queryRunner.query(SponsorPools1763800040400.allowanceFunctionSql);
    await queryRunner.query(
      `CREATE TRIGGER oauth_consents_sponsor_allowance AFTER INSERT ON oauth_consents FOR EACH ROW
       EXECUTE FUNCTION sy_sponsor_allowance()`,
    );
    await queryRunner.query(SponsorPools1763800040400.settleFunctionSql);
    await queryRunner.query(
      `CREATE TRIGGER reservations_sponsor_settle AFTER UPDATE OF status ON reservations FOR EACH ROW
       WHEN (OLD.status = 'open' AND NEW.status <> 'open' AND NEW.sponsor_micros > 0)
       EXECUTE FUNCTION sy_sponsor_settle()`,
    );
    await queryRunner.query(SponsorPools1763800040400.fundFunctionSql);
    await queryRunner.query(SponsorPools1763800040400.takeBackFunctionSql);
    await queryRunner.query(SponsorPools1763800040400.closeFunctionSql);
    await queryRunner.query(
      `CREATE TRIGGER oauth_clients_sponsor_close BEFORE DELETE ON oauth_clients FOR EACH ROW
       EXECUTE FUNCTION sy_sponsor_close()`,
    );
    await queryRunner.query(`DROP FUNCTION sy_reserve`);
    await queryRunner.query(SponsorPools1763800040400.reserveFunctionSql);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP FUNCTION sy_reserve`);
    await queryRunner.query(AppMarkup1763800040000.reserveFunctionSql);
    await queryRunner.query(`DROP TRIGGER oauth_clients_sponsor_close ON oauth_clients`);
    await queryRunner.query(`DROP FUNCTION sy_sponsor_close`);
    await queryRunner.query(`DROP FUNCTION sy_sponsor_take_back`);
    await queryRunner.query(`DROP FUNCTION sy_sponsor_fund`);
    await queryRunner.query(`DROP TRIGGER reservations_sponsor_settle ON reservations`);
    await queryRunner.query(`DROP FUNCTION sy_sponsor_settle`);
    await queryRunner.query(`DROP TRIGGER oauth_consents_sponsor_allowance ON oauth_consents`);
    await queryRunner.query(`DROP FUNCTION sy_sponsor_allowance`);
    await queryRunner.query(`ALTER TABLE reservations DROP COLUMN sponsor_micros`);
    await queryRunner.query(`DROP TABLE sponsor_allowances`);
    await queryRunner.query(`DROP TABLE sponsor_pools`);
    await queryRunner.query(`DELETE FROM ledger_entries WHERE kind IN ('sponsor_fund', 'sponsor_back', 'sponsor')`);
    await queryRunner.query(`ALTER TABLE ledger_entries DROP CONSTRAINT ledger_entries_kind_check`);
    await queryRunner.query(
      `ALTER TABLE ledger_entries ADD CONSTRAINT ledger_entries_kind_check CHECK (kind IN (${KINDS_BEFORE}))`,
    );
  }

  static readonly allowanceFunctionSql = `
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

  static readonly fundFunctionSql = `
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

  static readonly takeBackFunctionSql = `
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

  static readonly closeFunctionSql = `
      CREATE FUNCTION sy_sponsor_close() RETURNS trigger LANGUAGE plpgsql AS $fn$
      BEGIN
        PERFORM sy_sponsor_take_back(OLD.client_id, gen_random_uuid());
        RETURN OLD;
      END
      $fn$`;

  static readonly settleFunctionSql = `
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
}
