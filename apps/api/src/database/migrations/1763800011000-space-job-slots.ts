import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A user's queued and running space jobs each hold one of a few numbered slots, unique per user while the job is
 * active, so the per-user limit on jobs at once is kept by the index itself: two requests racing for the last
 * slot cannot both insert (a count followed by an insert let 12 concurrent requests start 4 jobs against 3).
 */
export class SpaceJobSlots1763800011000 implements MigrationInterface {
  name = 'SpaceJobSlots1763800011000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE space_jobs ADD COLUMN slot smallint CHECK (slot >= 1)`);
    // Jobs active now get slots in the order they were created (more than the limit only if the race happened).
    await queryRunner.query(`
      UPDATE space_jobs j SET slot = ranked.n
        FROM (SELECT id, row_number() OVER (PARTITION BY user_id ORDER BY created_at, id) AS n
                FROM space_jobs WHERE status IN ('queued', 'running')) ranked
       WHERE j.id = ranked.id`);
    await queryRunner.query(
      `CREATE UNIQUE INDEX space_jobs_user_slot_key ON space_jobs (user_id, slot) WHERE status IN ('queued', 'running')`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX space_jobs_user_slot_key`);
    await queryRunner.query(`ALTER TABLE space_jobs DROP COLUMN slot`);
  }
}
