import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The time to first byte of a call's answer, in ms after it started (null when no answer began: a refusal, an
 * error before the provider answered, or a row written before this column). A nullable column without a default
 * is added to the partitioned usage_records and every partition without rewriting a row.
 */
export class UsageFirstByte1763800021500 implements MigrationInterface {
  name = 'UsageFirstByte1763800021500';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE usage_records ADD COLUMN first_byte_ms integer`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE usage_records DROP COLUMN first_byte_ms`);
  }
}
