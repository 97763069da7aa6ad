import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The 100-apps-per-user limit of Spaces, kept by the database: it was counted, then inserted, so concurrent
 * generations could pass it together. Each user's count lives in space_app_counts, kept by a trigger on space_apps;
 * an insert that would take it past 100 fails with a check_violation named space_app_limit (the increment is an
 * upsert on the user's row, so concurrent inserts serialise on it and each sees the count the previous one left).
 * Deletions count down without a check, so an account over the limit (made before this migration) can always go
 * back under it.
 */
export class SpaceAppCounts1763800014000 implements MigrationInterface {
  name = 'SpaceAppCounts1763800014000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE space_app_counts (
        user_id uuid PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
        apps integer NOT NULL DEFAULT 0
      )`);
    await queryRunner.query(
      `INSERT INTO space_app_counts (user_id, apps) SELECT user_id, count(*) FROM space_apps GROUP BY user_id`,
    );
    await queryRunner.query(`
      CREATE FUNCTION space_apps_count() RETURNS trigger LANGUAGE plpgsql AS $fn$
      DECLARE
        n integer;
      BEGIN
        IF TG_OP = 'DELETE' THEN
          UPDATE space_app_counts SET apps = apps - 1 WHERE user_id = OLD.user_id;
          RETURN OLD;
        END IF;
        INSERT INTO space_app_counts (user_id, apps) VALUES (NEW.user_id, 1)
          ON CONFLICT (user_id) DO UPDATE SET apps = space_app_counts.apps + 1 RETURNING apps INTO n;
        IF n > 100 THEN
          RAISE EXCEPTION 'at most 100 space apps per user' USING ERRCODE = 'check_violation', CONSTRAINT = 'space_app_limit';
        END IF;
        RETURN NEW;
      END
      $fn$`);
    await queryRunner.query(
      `CREATE TRIGGER space_apps_count AFTER INSERT OR DELETE ON space_apps FOR EACH ROW EXECUTE FUNCTION space_apps_count()`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TRIGGER space_apps_count ON space_apps`);
    await queryRunner.query(`DROP FUNCTION space_apps_count`);
    await queryRunner.query(`DROP TABLE space_app_counts`);
  }
}
