import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Mail around accounts (docs/mail.md, docs/accounts.md): single-use tokens a mail carries (a password reset, an
 * address verification), stored as their SHA-256 only, for the address they were sent to, with an expiry; when the
 * address was verified; and when an operator disabled the account (docs/operations.md, "The operator's console").
 * Existing accounts start unverified and enabled.
 */
export class AccountMail1763800033100 implements MigrationInterface {
  name = 'AccountMail1763800033100';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE account_tokens (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        purpose text NOT NULL CHECK (purpose IN ('password_reset', 'verify_email')),
        token_hash text NOT NULL UNIQUE,
        email text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL,
        used_at timestamptz
      )`);
    await queryRunner.query(`CREATE INDEX account_tokens_user ON account_tokens (user_id, purpose)`);
    await queryRunner.query(`ALTER TABLE users ADD COLUMN email_verified_at timestamptz`);
    await queryRunner.query(`ALTER TABLE users ADD COLUMN disabled_at timestamptz`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE users DROP COLUMN disabled_at`);
    await queryRunner.query(`ALTER TABLE users DROP COLUMN email_verified_at`);
    await queryRunner.query(`DROP TABLE account_tokens`);
  }
}
