import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * API keys may expire (`expires_at`; the gateway refuses a key past it like a revoked one), and each user has at
 * most one live dashboard key (`dashboard`: the credential the dashboard's playground calls through on the
 * session, docs/dashboard.md), which the partial unique index keeps single when two tabs ask for it at once.
 */
export class KeyExpiry1763800017000 implements MigrationInterface {
  name = 'KeyExpiry1763800017000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE api_keys
        ADD COLUMN expires_at timestamptz,
        ADD COLUMN dashboard boolean NOT NULL DEFAULT false`);
    await queryRunner.query(
      `CREATE UNIQUE INDEX api_keys_dashboard_idx ON api_keys (user_id) WHERE dashboard AND revoked_at IS NULL`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX api_keys_dashboard_idx`);
    await queryRunner.query(`ALTER TABLE api_keys DROP COLUMN expires_at, DROP COLUMN dashboard`);
  }
}
