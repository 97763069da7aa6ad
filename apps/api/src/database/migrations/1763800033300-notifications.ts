import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Budget alerts by mail (docs/mail.md, "Alerts"): each account's thresholds (no row: the defaults; a null column:
 * that alert off), and which alerts have fired, one row per crossing (the primary key makes "once" hold across
 * instances: the instance whose insert wins sends the mail).
 */
export class Notifications1763800033300 implements MigrationInterface {
  name = 'Notifications1763800033300';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE notification_settings (
        user_id uuid PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
        low_balance_micros bigint CHECK (low_balance_micros >= 0),
        cap_alert_percent integer CHECK (cap_alert_percent BETWEEN 1 AND 100),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`
      CREATE TABLE alert_state (
        user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        alert_key text NOT NULL,
        fired_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (user_id, alert_key)
      )`);
    await queryRunner.query(`CREATE INDEX balances_updated_idx ON balances (updated_at)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX balances_updated_idx`);
    await queryRunner.query(`DROP TABLE alert_state`);
    await queryRunner.query(`DROP TABLE notification_settings`);
  }
}
