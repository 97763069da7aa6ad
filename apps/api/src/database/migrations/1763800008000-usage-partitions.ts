import { MigrationInterface, QueryRunner } from 'typeorm';

const COLUMNS = `
        id uuid NOT NULL DEFAULT gen_random_uuid(),
        request_id text NOT NULL,
        user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        api_key_id uuid REFERENCES api_keys (id) ON DELETE SET NULL,
        oauth_client_id text,
        credential_name text,
        method text NOT NULL,
        model text NOT NULL,
        provider text,
        stream boolean NOT NULL DEFAULT false,
        status text NOT NULL,
        http_status integer NOT NULL,
        error_code text,
        prompt_tokens integer NOT NULL DEFAULT 0,
        completion_tokens integer NOT NULL DEFAULT 0,
        total_tokens integer NOT NULL DEFAULT 0,
        cost_micros bigint NOT NULL DEFAULT 0,
        latency_ms integer NOT NULL,
        started_at timestamptz NOT NULL,
        ended_at timestamptz NOT NULL`;

const COLUMN_LIST = `id, request_id, user_id, api_key_id, oauth_client_id, credential_name, method, model, provider, stream,
  status, http_status, error_code, prompt_tokens, completion_tokens, total_tokens, cost_micros, latency_ms, started_at, ended_at`;

const SUMS = ['requests', 'errors', 'prompt_tokens', 'completion_tokens', 'total_tokens', 'cost_micros']
  .map((c) => `${c} bigint NOT NULL`)
  .join(', ');

/**
 * Computes the rollups from usage_records (empty rollup tables assumed), in order: usage_daily, then the two app
 * tables from it. Also used by tools/bench/analytics.mjs after its bulk load.
 */
export const ROLLUP_BACKFILL = [
  `INSERT INTO usage_daily (day, user_id, api_key_id, oauth_client_id, credential_name, model,
                            requests, errors, prompt_tokens, completion_tokens, total_tokens, cost_micros)
   SELECT (started_at AT TIME ZONE 'UTC')::date, user_id, api_key_id, oauth_client_id, credential_name, model,
          count(*), count(*) FILTER (WHERE status <> 'success'), sum(prompt_tokens), sum(completion_tokens),
          sum(total_tokens), sum(cost_micros)
     FROM usage_records GROUP BY 1, 2, 3, 4, 5, 6`,
  `INSERT INTO usage_app_daily (oauth_client_id, day, model, requests, errors, prompt_tokens, completion_tokens, total_tokens, cost_micros)
   SELECT oauth_client_id, day, model, sum(requests), sum(errors), sum(prompt_tokens), sum(completion_tokens), sum(total_tokens), sum(cost_micros)
     FROM usage_daily WHERE oauth_client_id IS NOT NULL GROUP BY 1, 2, 3`,
  `INSERT INTO usage_app_users (oauth_client_id, month, user_id, days)
   SELECT oauth_client_id, day - (extract(day FROM day)::int - 1), user_id, bit_or(1 << (extract(day FROM day)::int - 1))
     FROM usage_daily WHERE oauth_client_id IS NOT NULL GROUP BY 1, 2, 3`,
];

const INDEXES = ['usage_records_user_started_idx', 'usage_records_key_idx', 'usage_records_client_idx'];

/** Renames usage_records and its constraints out of the way, and drops its indexes, to build the table anew. */
async function setAside(queryRunner: QueryRunner, name: string): Promise<void> {
  await queryRunner.query(`ALTER TABLE usage_records RENAME TO ${name}`);
  for (const index of INDEXES) await queryRunner.query(`DROP INDEX ${index}`);
  for (const constraint of ['pkey', 'request_id_key'])
    await queryRunner.query(
      `ALTER TABLE ${name} RENAME CONSTRAINT usage_records_${constraint} TO ${name}_${constraint}`,
    );
}

async function createIndexes(queryRunner: QueryRunner, userColumns: string): Promise<void> {
  const [user, key, client] = INDEXES;
  await queryRunner.query(`CREATE INDEX ${user} ON usage_records (${userColumns})`);
  await queryRunner.query(`CREATE INDEX ${key} ON usage_records (api_key_id, started_at DESC)`);
  await queryRunner.query(`CREATE INDEX ${client} ON usage_records (oauth_client_id, started_at DESC)`);
}

/**
 * Usage data that grows without slowing reads (docs/operations.md, "Usage data"):
 * - usage_records becomes a table partitioned by month of started_at (UTC), with a DEFAULT partition as a safety
 *   net. A partitioned table's unique constraints must contain the partition key, so the key is
 *   (id, started_at) and the dedupe key (request_id, started_at): a retried batch carries the same started_at.
 * - usage_partition_ensure(month) creates one month's partition, idempotently and safely when two instances run
 *   it at once; if the DEFAULT partition already holds rows of that month, it moves them into the new partition.
 * - usage_daily holds per-day rollups (UTC) that the recorder keeps in the same statement as its insert, and
 *   the analytics read for whole days.
 */
export class UsagePartitions1763800008000 implements MigrationInterface {
  name = 'UsagePartitions1763800008000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await setAside(queryRunner, 'usage_records_unpartitioned');
    await queryRunner.query(`
      CREATE TABLE usage_records (${COLUMNS},
        CONSTRAINT usage_records_pkey PRIMARY KEY (id, started_at),
        CONSTRAINT usage_records_request_id_key UNIQUE (request_id, started_at)
      ) PARTITION BY RANGE (started_at)`);
    await queryRunner.query(`CREATE TABLE usage_records_default PARTITION OF usage_records DEFAULT`);
    // Activity pages newest first per user by (started_at, id); analytics' edge days and the per-key and
    // per-app reads use the other two.
    await createIndexes(queryRunner, 'user_id, started_at DESC, id DESC');
    // Months are UTC months. Bounds are computed from a date, never from session-time-zone truncation.
    await queryRunner.query(`
      CREATE FUNCTION usage_partition_ensure(p_month date) RETURNS boolean LANGUAGE plpgsql AS $$
      DECLARE
        first_day date := make_date(extract(year FROM p_month)::int, extract(month FROM p_month)::int, 1);
        lo timestamptz := first_day::timestamp AT TIME ZONE 'UTC';
        hi timestamptz := (first_day + interval '1 month') AT TIME ZONE 'UTC';
        part text := 'usage_records_p' || to_char(first_day, 'YYYYMM');
      BEGIN
        IF to_regclass(part) IS NOT NULL THEN RETURN false; END IF;
        -- Serialises creators (the mode conflicts with itself) and holds back inserts for the few milliseconds
        -- this takes. The parent is locked before any partition, in the order inserts take them, so an insert
        -- waiting here cannot deadlock with this.
        LOCK TABLE usage_records IN SHARE ROW EXCLUSIVE MODE;
        IF to_regclass(part) IS NOT NULL THEN RETURN false; END IF;
        IF EXISTS (SELECT 1 FROM usage_records_default WHERE started_at >= lo AND started_at < hi) THEN
          -- A month created late: its rows went to the DEFAULT partition, and a partition for a range the
          -- DEFAULT one holds rows of cannot be added. Move them into a table, then attach it.
          EXECUTE format('CREATE TABLE %I (LIKE usage_records INCLUDING DEFAULTS)', part);
          EXECUTE format('WITH moved AS (DELETE FROM usage_records_default WHERE started_at >= $1 AND started_at < $2 RETURNING *)
                          INSERT INTO %I SELECT * FROM moved', part) USING lo, hi;
          EXECUTE format('ALTER TABLE usage_records ATTACH PARTITION %I FOR VALUES FROM (%L) TO (%L)', part, lo, hi);
        ELSE
          EXECUTE format('CREATE TABLE %I PARTITION OF usage_records FOR VALUES FROM (%L) TO (%L)', part, lo, hi);
        END IF;
        RETURN true;
      END $$`);
    // Every month that holds rows, through three months ahead; the app keeps creating months ahead from then on.
    await queryRunner.query(`
      SELECT usage_partition_ensure(month::date)
        FROM generate_series(
               date_trunc('month', LEAST((SELECT min(started_at) FROM usage_records_unpartitioned), now()) AT TIME ZONE 'UTC'),
               date_trunc('month', now() AT TIME ZONE 'UTC') + interval '3 months',
               interval '1 month') AS month`);
    await queryRunner.query(
      `INSERT INTO usage_records (${COLUMN_LIST}) SELECT ${COLUMN_LIST} FROM usage_records_unpartitioned`,
    );
    await queryRunner.query(`DROP TABLE usage_records_unpartitioned`);

    // One row per UTC day, user, credential and model. NULLS NOT DISTINCT: a call without an API key or app
    // adds to the same row as the previous one (PostgreSQL 15+; PGlite is 18). api_key_id has no foreign key:
    // keys are revoked, never deleted, except with their user, whose rollups go with them.
    await queryRunner.query(`
      CREATE TABLE usage_daily (
        day date NOT NULL,
        user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        api_key_id uuid,
        oauth_client_id text,
        credential_name text,
        model text NOT NULL,
        ${SUMS},
        CONSTRAINT usage_daily_key UNIQUE NULLS NOT DISTINCT (user_id, day, api_key_id, oauth_client_id, credential_name, model)
      )`);
    await queryRunner.query(ROLLUP_BACKFILL[0]);

    // An app's usage across all its users, which usage_daily (one row per user) answers too slowly for an app
    // with thousands of users: the same sums per app, day and model, and which users called the app on which
    // days, one row per app, user and month with bit i of `days` set for day i + 1 of the month.
    await queryRunner.query(`
      CREATE TABLE usage_app_daily (
        oauth_client_id text NOT NULL,
        day date NOT NULL,
        model text NOT NULL,
        ${SUMS},
        CONSTRAINT usage_app_daily_pkey PRIMARY KEY (oauth_client_id, day, model)
      )`);
    await queryRunner.query(`
      CREATE TABLE usage_app_users (
        oauth_client_id text NOT NULL,
        month date NOT NULL,
        user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        days integer NOT NULL,
        CONSTRAINT usage_app_users_pkey PRIMARY KEY (oauth_client_id, month, user_id)
      )`);
    await queryRunner.query(`CREATE INDEX usage_app_users_user_idx ON usage_app_users (user_id)`);
    for (const statement of ROLLUP_BACKFILL.slice(1)) await queryRunner.query(statement);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE usage_app_users`);
    await queryRunner.query(`DROP TABLE usage_app_daily`);
    await queryRunner.query(`DROP TABLE usage_daily`);
    await setAside(queryRunner, 'usage_records_partitioned');
    await queryRunner.query(`
      CREATE TABLE usage_records (${COLUMNS.replace('id uuid NOT NULL', 'id uuid PRIMARY KEY')},
        CONSTRAINT usage_records_request_id_key UNIQUE (request_id)
      )`);
    // request_id is unique again on its own: should two rows share one (only possible with different
    // started_at, which the recorder never writes), the first is kept.
    await queryRunner.query(`
      INSERT INTO usage_records (${COLUMN_LIST}) SELECT ${COLUMN_LIST} FROM usage_records_partitioned
      ORDER BY started_at ON CONFLICT DO NOTHING`);
    await queryRunner.query(`DROP TABLE usage_records_partitioned`);
    await queryRunner.query(`DROP FUNCTION usage_partition_ensure(date)`);
    await createIndexes(queryRunner, 'user_id, started_at DESC');
  }
}
