import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A deleted account (docs/accounts.md, "Deleting an account") keeps its row, anonymised, so the ledger, usage
 * records and payments that reference it stay for accounting; `deleted_at` says when it was deleted.
 */
export class AccountDeletion1763800018000 implements MigrationInterface {
  name = 'AccountDeletion1763800018000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE users ADD COLUMN deleted_at timestamptz`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE users DROP COLUMN deleted_at`);
  }
}
