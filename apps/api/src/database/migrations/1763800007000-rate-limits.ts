import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Requests per minute on the gateway: per API key, and per app (applied to each user's use of it). Null means
 * the default of GATEWAY_RPM.
 */
export class RateLimits1763800007000 implements MigrationInterface {
  name = 'RateLimits1763800007000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE api_keys ADD COLUMN rate_limit_rpm integer CHECK (rate_limit_rpm >= 0)`);
    await queryRunner.query(`ALTER TABLE oauth_clients ADD COLUMN rate_limit_rpm integer CHECK (rate_limit_rpm >= 0)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE oauth_clients DROP COLUMN rate_limit_rpm`);
    await queryRunner.query(`ALTER TABLE api_keys DROP COLUMN rate_limit_rpm`);
  }
}
