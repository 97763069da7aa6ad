import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A space app's title of its own (docs/spaces.md, "Titles"): once its owner names it (at generation or by
 * renaming it), pages the model writes later no longer replace it with their <title>.
 */
export class SpaceAppTitles1763800033400 implements MigrationInterface {
  name = 'SpaceAppTitles1763800033400';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE space_apps ADD COLUMN title_set_by_user boolean NOT NULL DEFAULT false`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE space_apps DROP COLUMN title_set_by_user`);
  }
}
