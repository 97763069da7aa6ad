import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Spaces: every handle an account ever held (so a released handle is never handed to another user while its old
 * URLs still resolve, docs/decisions.md#hosted-space-apps), the apps with their kept versions (an edit can be undone), and
 * the generation jobs, whose rows are the job state: several instances claim them with a conditional UPDATE
 * and a lease, and a job whose instance died is taken over once its lease expires.
 */
export class Spaces1763800006000 implements MigrationInterface {
  name = 'Spaces1763800006000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE user_handles (
        handle text PRIMARY KEY,
        user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`CREATE INDEX user_handles_user_idx ON user_handles (user_id)`);
    // Handles set before this migration belong to their accounts' history too.
    await queryRunner.query(
      `INSERT INTO user_handles (handle, user_id) SELECT handle, id FROM users WHERE handle IS NOT NULL ON CONFLICT DO NOTHING`,
    );
    await queryRunner.query(`
      CREATE TABLE space_apps (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        slug text NOT NULL,
        title text NOT NULL,
        prompt text NOT NULL,
        models text[] NOT NULL,
        status text NOT NULL CHECK (status IN ('generating', 'ready', 'failed')),
        error text,
        published boolean NOT NULL DEFAULT false,
        current_version integer,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT space_apps_user_slug_key UNIQUE (user_id, slug),
        CHECK (status <> 'ready' OR current_version IS NOT NULL)
      )`);
    await queryRunner.query(`
      CREATE TABLE space_app_versions (
        app_id uuid NOT NULL REFERENCES space_apps (id) ON DELETE CASCADE,
        version integer NOT NULL CHECK (version > 0),
        parent_version integer,
        kind text NOT NULL CHECK (kind IN ('generate', 'edit')),
        prompt text NOT NULL,
        model text NOT NULL,
        title text NOT NULL,
        html text NOT NULL,
        request_id text,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (app_id, version)
      )`);
    await queryRunner.query(`
      CREATE TABLE space_jobs (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        app_id uuid NOT NULL REFERENCES space_apps (id) ON DELETE CASCADE,
        user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        kind text NOT NULL CHECK (kind IN ('generate', 'edit')),
        prompt text NOT NULL,
        models text[] NOT NULL,
        base_version integer,
        status text NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'running', 'done', 'failed')),
        attempts integer NOT NULL DEFAULT 0,
        claimed_by text,
        lease_until timestamptz,
        error text,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    // One job at a time per app: a second generate or edit while one runs is refused by this index.
    await queryRunner.query(
      `CREATE UNIQUE INDEX space_jobs_active_app_key ON space_jobs (app_id) WHERE status IN ('queued', 'running')`,
    );
    await queryRunner.query(
      `CREATE INDEX space_jobs_pending_idx ON space_jobs (created_at) WHERE status IN ('queued', 'running')`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE space_jobs`);
    await queryRunner.query(`DROP TABLE space_app_versions`);
    await queryRunner.query(`DROP TABLE space_apps`);
    await queryRunner.query(`DROP TABLE user_handles`);
  }
}
