import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Space apps that call models (docs/spaces.md, "Apps that call models"):
 * - `space_apps.client_pk`: the app's OAuth client, registered when it is first published (a public PKCE client
 *   owned by its creator whose redirect URI is the app's origin). Deleting the client from the OAuth apps page
 *   forgets it here; the next publish registers a new one.
 * - `space_apps.remix_of_*`: the app this one was remixed from, and its creator, kept even when the original goes;
 *   a remix's first version is of kind `remix` (the original's page).
 * - `oauth_clients.visitor_monthly_cap_micros`: the monthly cap a new user's consent starts with (a space app's
 *   visitors: a small one); null for every other app.
 */
export class SpaceAppClients1763800034500 implements MigrationInterface {
  name = 'SpaceAppClients1763800034500';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE space_apps ADD COLUMN client_pk integer REFERENCES oauth_clients(id) ON DELETE SET NULL`,
    );
    await queryRunner.query(
      `ALTER TABLE space_apps ADD COLUMN remix_of_app uuid REFERENCES space_apps(id) ON DELETE SET NULL`,
    );
    await queryRunner.query(`ALTER TABLE space_apps ADD COLUMN remix_of_user uuid`);
    await queryRunner.query(`ALTER TABLE space_apps ADD COLUMN remix_of_slug text`);
    await queryRunner.query(`ALTER TABLE space_apps ADD COLUMN remix_of_title text`);
    await queryRunner.query(`ALTER TABLE oauth_clients ADD COLUMN visitor_monthly_cap_micros bigint`);
    // A remix starts its history with the original's page: a version of its own kind.
    await queryRunner.query(`ALTER TABLE space_app_versions DROP CONSTRAINT space_app_versions_kind_check`);
    await queryRunner.query(
      `ALTER TABLE space_app_versions ADD CONSTRAINT space_app_versions_kind_check CHECK (kind IN ('generate', 'edit', 'remix'))`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `DELETE FROM space_apps WHERE id IN (SELECT app_id FROM space_app_versions WHERE kind = 'remix')`,
    );
    await queryRunner.query(`ALTER TABLE space_app_versions DROP CONSTRAINT space_app_versions_kind_check`);
    await queryRunner.query(
      `ALTER TABLE space_app_versions ADD CONSTRAINT space_app_versions_kind_check CHECK (kind IN ('generate', 'edit'))`,
    );
    await queryRunner.query(`ALTER TABLE oauth_clients DROP COLUMN visitor_monthly_cap_micros`);
    for (const column of ['remix_of_title', 'remix_of_slug', 'remix_of_user', 'remix_of_app', 'client_pk'])
      await queryRunner.query(`ALTER TABLE space_apps DROP COLUMN ${column}`);
  }
}
