import { MigrationInterface, QueryRunner } from 'typeorm';

export class Gateway1763800001000 implements MigrationInterface {
  name = 'Gateway1763800001000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE api_keys (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        name text NOT NULL,
        key_hash text NOT NULL,
        key_start text NOT NULL,
        key_end text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        last_used_at timestamptz,
        revoked_at timestamptz,
        CONSTRAINT api_keys_key_hash_key UNIQUE (key_hash)
      )`);
    await queryRunner.query(`CREATE INDEX api_keys_user_id_idx ON api_keys (user_id, created_at DESC)`);
    // One row per gateway call, success or failure. request_id is unique, so a record can never be counted twice.
    await queryRunner.query(`
      CREATE TABLE usage_records (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
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
        ended_at timestamptz NOT NULL,
        CONSTRAINT usage_records_request_id_key UNIQUE (request_id)
      )`);
    await queryRunner.query(`CREATE INDEX usage_records_user_started_idx ON usage_records (user_id, started_at DESC)`);
    await queryRunner.query(`CREATE INDEX usage_records_key_idx ON usage_records (api_key_id, started_at DESC)`);
    await queryRunner.query(
      `CREATE INDEX usage_records_client_idx ON usage_records (oauth_client_id, started_at DESC)`,
    );
    // Which model (and so which provider) made a video, and whose it is: later calls name only the video id.
    await queryRunner.query(`
      CREATE TABLE video_jobs (
        id text PRIMARY KEY,
        user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        model text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE video_jobs`);
    await queryRunner.query(`DROP TABLE usage_records`);
    await queryRunner.query(`DROP TABLE api_keys`);
  }
}
