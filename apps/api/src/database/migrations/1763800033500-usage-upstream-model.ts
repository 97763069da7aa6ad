import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The deployment that answered a call (docs/routing.md, "Prices"): its upstream model beside the provider the usage
 * record already names, so two deployments of one provider are told apart in the request log. Added to the
 * partitioned table, so every partition (those that exist and those made later) has it.
 */
export class UsageUpstreamModel1763800033500 implements MigrationInterface {
  name = 'UsageUpstreamModel1763800033500';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE usage_records ADD COLUMN upstream_model text`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE usage_records DROP COLUMN upstream_model`);
  }
}
