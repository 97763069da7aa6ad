import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The components of a call's tokens on its usage record (docs/pricing.md): cache reads, five-minute and one-hour
 * cache writes (all within prompt_tokens) and reasoning (within completion_tokens). usage_records is partitioned
 * by month: a column added to the parent is added to every partition. Rows written before it count 0 of each.
 */
export class UsageComponents1763800016000 implements MigrationInterface {
  name = 'UsageComponents1763800016000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE usage_records
        ADD COLUMN cache_read_tokens integer NOT NULL DEFAULT 0,
        ADD COLUMN cache_write_tokens integer NOT NULL DEFAULT 0,
        ADD COLUMN cache_write_1h_tokens integer NOT NULL DEFAULT 0,
        ADD COLUMN reasoning_tokens integer NOT NULL DEFAULT 0`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE usage_records
        DROP COLUMN cache_read_tokens,
        DROP COLUMN cache_write_tokens,
        DROP COLUMN cache_write_1h_tokens,
        DROP COLUMN reasoning_tokens`);
  }
}
