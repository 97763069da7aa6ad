import { MigrationInterface, QueryRunner } from 'typeorm';
import { KeyLimits1763800003000 } from './1763800003000-key-limits';

/**
 * OAuth2 for third-party apps: clients, the consents users gave them (with what each app may spend), single-use
 * authorization codes, grants (one authorization's chain of rotating refresh tokens) and tokens. Secrets, codes
 * and tokens are stored only as SHA-256 hashes. Deleting a consent deletes its grants and their tokens; deleting
 * a client deletes its consents.
 */
export class OAuth1763800004000 implements MigrationInterface {
  name = 'OAuth1763800004000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE oauth_clients (
        id serial PRIMARY KEY,
        client_id text NOT NULL,
        owner_id uuid REFERENCES users (id) ON DELETE CASCADE,
        client_name text NOT NULL,
        client_type text NOT NULL CHECK (client_type IN ('PUBLIC', 'CONFIDENTIAL')),
        secret_hash text,
        redirect_uris text[] NOT NULL,
        scopes text[] NOT NULL,
        access_token_ttl_seconds integer NOT NULL,
        refresh_token_ttl_seconds integer NOT NULL,
        require_pkce boolean NOT NULL DEFAULT true,
        require_consent boolean NOT NULL DEFAULT true,
        is_active boolean NOT NULL DEFAULT true,
        registration text NOT NULL DEFAULT 'owner' CHECK (registration IN ('owner', 'dynamic')),
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT oauth_clients_client_id_key UNIQUE (client_id),
        CHECK ((client_type = 'CONFIDENTIAL') = (secret_hash IS NOT NULL))
      )`);
    await queryRunner.query(`CREATE INDEX oauth_clients_owner_idx ON oauth_clients (owner_id)`);
    await queryRunner.query(`
      CREATE TABLE oauth_consents (
        user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        client_pk integer NOT NULL REFERENCES oauth_clients (id) ON DELETE CASCADE,
        scopes text[] NOT NULL,
        granted_at timestamptz NOT NULL DEFAULT now(),
        last_used_at timestamptz,
        limit_total_micros bigint CHECK (limit_total_micros >= 0),
        limit_daily_micros bigint CHECK (limit_daily_micros >= 0),
        limit_weekly_micros bigint CHECK (limit_weekly_micros >= 0),
        limit_monthly_micros bigint CHECK (limit_monthly_micros >= 0),
        limit_per_request_micros bigint CHECK (limit_per_request_micros >= 0),
        PRIMARY KEY (user_id, client_pk)
      )`);
    await queryRunner.query(`CREATE INDEX oauth_consents_client_idx ON oauth_consents (client_pk)`);
    await queryRunner.query(`
      CREATE TABLE oauth_grants (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        user_id uuid NOT NULL,
        client_pk integer NOT NULL,
        scopes text[] NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        revoked_at timestamptz,
        revoked_reason text,
        FOREIGN KEY (user_id, client_pk) REFERENCES oauth_consents (user_id, client_pk) ON DELETE CASCADE
      )`);
    await queryRunner.query(`CREATE INDEX oauth_grants_pair_idx ON oauth_grants (user_id, client_pk)`);
    await queryRunner.query(`
      CREATE TABLE oauth_codes (
        code_hash text PRIMARY KEY,
        client_pk integer NOT NULL REFERENCES oauth_clients (id) ON DELETE CASCADE,
        user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        redirect_uri text NOT NULL,
        scopes text[] NOT NULL,
        code_challenge text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL,
        used_at timestamptz,
        grant_id uuid REFERENCES oauth_grants (id) ON DELETE SET NULL
      )`);
    await queryRunner.query(`CREATE INDEX oauth_codes_expires_idx ON oauth_codes (expires_at)`);
    await queryRunner.query(`
      CREATE TABLE oauth_tokens (
        token_hash text PRIMARY KEY,
        grant_id uuid NOT NULL REFERENCES oauth_grants (id) ON DELETE CASCADE,
        kind text NOT NULL CHECK (kind IN ('access', 'refresh')),
        scopes text[],
        created_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL,
        used_at timestamptz,
        revoked_at timestamptz
      )`);
    await queryRunner.query(`CREATE INDEX oauth_tokens_grant_idx ON oauth_tokens (grant_id)`);
    await queryRunner.query(`CREATE INDEX oauth_tokens_expires_idx ON oauth_tokens (expires_at)`);
    await queryRunner.query(
      `CREATE INDEX reservations_app_created_idx ON reservations (user_id, oauth_client_id, created_at) WHERE oauth_client_id IS NOT NULL`,
    );
    await queryRunner.query(`DROP FUNCTION sy_reserve`);
    await queryRunner.query(OAuth1763800004000.reserveFunctionSql);
  }

  /**
   * sy_reserve as the key-limits migration left it, plus what the user let one app spend: the same five caps as
   * a key's (total, UTC day, week and month, per request), read from the consent row, which is locked so
   * concurrent calls of one app for one user serialise like those of one key.
   */
  static readonly reserveFunctionSql = KeyLimits1763800003000.reserveFunction({
    declare: `
        a record;
        app_spent record;`,
    checks: `        IF p_client IS NOT NULL THEN
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
`,
  });

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP FUNCTION sy_reserve`);
    await queryRunner.query(KeyLimits1763800003000.reserveFunctionSql);
    await queryRunner.query(`DROP INDEX reservations_app_created_idx`);
    await queryRunner.query(`DROP TABLE oauth_tokens`);
    await queryRunner.query(`DROP TABLE oauth_codes`);
    await queryRunner.query(`DROP TABLE oauth_grants`);
    await queryRunner.query(`DROP TABLE oauth_consents`);
    await queryRunner.query(`DROP TABLE oauth_clients`);
  }
}
