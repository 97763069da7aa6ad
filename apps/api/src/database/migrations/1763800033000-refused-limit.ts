import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Which limit refused a call (docs/budgets.md, "Which limit refused a call"): `account` (the balance:
 * budget_exhausted), or a key's or an app's spend limit as `key:daily`, `app:per_request`, … (spend_limit_exceeded);
 * null for every other ending. A nullable column without a default: added to the partitioned usage_records and
 * every partition without rewriting a row.
 */
export class RefusedLimit1763800033000 implements MigrationInterface {
  name = 'RefusedLimit1763800033000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE usage_records ADD COLUMN refused_limit text`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE usage_records DROP COLUMN refused_limit`);
  }
}
