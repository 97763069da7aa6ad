import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A user's allowances from sponsor pools, found by user (docs/earnings.md, "Sponsored credits"): the Authorized apps
 * list reads all of them at once (SponsorRepository.allowancesOf), and deleting an account removes them through the
 * foreign key. The primary key (app, user) serves neither: it leads with the app.
 */
export class SponsorAllowancesByUser1763800043000 implements MigrationInterface {
  name = 'SponsorAllowancesByUser1763800043000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE INDEX sponsor_allowances_user ON sponsor_allowances (user_id)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX sponsor_allowances_user`);
  }
}
