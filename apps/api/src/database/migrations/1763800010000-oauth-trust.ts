import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Trust boundaries of OAuth (docs/oauth.md):
 * - `oauth_clients.trusted`: only first-party apps that an admin marked skip the consent page. The owner's own
 *   `require_consent` no longer decides anything; it is set to true everywhere and kept only so that an
 *   instance of the previous version, still running during a rolling upgrade, asks for consent too.
 * - `oauth_clients.used_at`: when a token was first issued to the app; a dynamically registered app with none
 *   24 hours after registering is ignored and then deleted.
 * - `oauth_clients.slot`: each owner's apps hold distinct slots 1-50, so the per-account limit holds under
 *   concurrent creates without a transaction (a unique index and a CHECK, not a count read before the insert).
 * - `oauth_tokens.parent_hash`: the refresh token a refresh token was rotated from, for the retry grace rule.
 */
export class OAuthTrust1763800010000 implements MigrationInterface {
  name = 'OAuthTrust1763800010000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE oauth_clients ADD COLUMN trusted boolean NOT NULL DEFAULT false`);
    await queryRunner.query(`UPDATE oauth_clients SET require_consent = true WHERE NOT require_consent`);
    await queryRunner.query(`ALTER TABLE oauth_clients ADD COLUMN used_at timestamptz`);
    await queryRunner.query(
      `UPDATE oauth_clients c SET used_at = now() WHERE EXISTS (SELECT 1 FROM oauth_grants g WHERE g.client_pk = c.id)`,
    );
    await queryRunner.query(`ALTER TABLE oauth_clients ADD COLUMN slot smallint CHECK (slot BETWEEN 1 AND 50)`);
    // Apps past the 50th (created by the old racing check) keep no slot: they still count, and no new one fits.
    await queryRunner.query(`
      UPDATE oauth_clients c SET slot = n.rank
        FROM (SELECT id, row_number() OVER (PARTITION BY owner_id ORDER BY id) AS rank FROM oauth_clients WHERE owner_id IS NOT NULL) n
       WHERE c.id = n.id AND n.rank <= 50`);
    await queryRunner.query(
      `ALTER TABLE oauth_clients ADD CONSTRAINT oauth_clients_owner_slot_key UNIQUE (owner_id, slot)`,
    );
    await queryRunner.query(
      `CREATE INDEX oauth_clients_unused_dynamic_idx ON oauth_clients (created_at) WHERE registration = 'dynamic' AND used_at IS NULL`,
    );
    await queryRunner.query(`ALTER TABLE oauth_tokens ADD COLUMN parent_hash text`);
    await queryRunner.query(
      `CREATE INDEX oauth_tokens_parent_idx ON oauth_tokens (parent_hash) WHERE parent_hash IS NOT NULL`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX oauth_tokens_parent_idx`);
    await queryRunner.query(`ALTER TABLE oauth_tokens DROP COLUMN parent_hash`);
    await queryRunner.query(`DROP INDEX oauth_clients_unused_dynamic_idx`);
    await queryRunner.query(`ALTER TABLE oauth_clients DROP CONSTRAINT oauth_clients_owner_slot_key`);
    await queryRunner.query(`ALTER TABLE oauth_clients DROP COLUMN slot`);
    await queryRunner.query(`ALTER TABLE oauth_clients DROP COLUMN used_at`);
    await queryRunner.query(`ALTER TABLE oauth_clients DROP COLUMN trusted`);
  }
}
