import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The operator's audit log (docs/operations.md, "The operator's console"): one row per admin action, who (the
 * admin's id; null with actor 'cli' for the command line), what (the action, the account it concerned, its details)
 * and when. Append-only in the database itself: a trigger refuses every UPDATE, DELETE and TRUNCATE, whoever
 * asks, so neither a bug nor a compromised admin session can rewrite what was done.
 */
export class AdminAuditLog1763800033200 implements MigrationInterface {
  name = 'AdminAuditLog1763800033200';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE admin_audit_log (
        id bigserial PRIMARY KEY,
        created_at timestamptz NOT NULL DEFAULT now(),
        admin_id uuid REFERENCES users(id),
        actor text NOT NULL CHECK (actor IN ('admin', 'cli')),
        action text NOT NULL,
        target_user_id uuid REFERENCES users(id),
        details jsonb NOT NULL DEFAULT '{}'::jsonb,
        CHECK ((actor = 'admin') = (admin_id IS NOT NULL))
      )`);
    await queryRunner.query(`CREATE INDEX admin_audit_log_target ON admin_audit_log (target_user_id, id)`);
    await queryRunner.query(`
      CREATE FUNCTION sy_audit_append_only() RETURNS trigger LANGUAGE plpgsql AS $fn$
      BEGIN
        RAISE EXCEPTION 'admin_audit_log is append-only: % is refused', TG_OP USING ERRCODE = 'insufficient_privilege';
      END
      $fn$`);
    await queryRunner.query(`
      CREATE TRIGGER admin_audit_log_append_only BEFORE UPDATE OR DELETE ON admin_audit_log
      FOR EACH ROW EXECUTE FUNCTION sy_audit_append_only()`);
    await queryRunner.query(`
      CREATE TRIGGER admin_audit_log_no_truncate BEFORE TRUNCATE ON admin_audit_log
      FOR EACH STATEMENT EXECUTE FUNCTION sy_audit_append_only()`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE admin_audit_log`);
    await queryRunner.query(`DROP FUNCTION sy_audit_append_only()`);
  }
}
