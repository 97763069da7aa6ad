import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * OpenID Connect (docs/oauth.md#openid-connect):
 * - `oidc_signing_keys`: the keys that sign ID tokens, one per rotation period (`period`, unique, so instances
 *   that rotate at the same moment insert one key between them). The public half is published at the JWKS URI;
 *   the private half is stored encrypted with OIDC_KEY_SECRET when it is set (`aes-256-gcm:…`), as PKCS#8 PEM
 *   otherwise (`pkcs8:…`), and is never served.
 * - `oauth_codes.nonce`: the authorization request's `nonce`, echoed in the ID token issued for the code.
 */
export class OpenIdConnect1763800029000 implements MigrationInterface {
  name = 'OpenIdConnect1763800029000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE oidc_signing_keys (
        kid text PRIMARY KEY,
        alg text NOT NULL CHECK (alg IN ('RS256')),
        period bigint NOT NULL,
        public_jwk jsonb NOT NULL,
        private_key text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT oidc_signing_keys_period_key UNIQUE (period)
      )`);
    await queryRunner.query(`ALTER TABLE oauth_codes ADD COLUMN nonce text CHECK (length(nonce) <= 255)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE oauth_codes DROP COLUMN nonce`);
    await queryRunner.query(`DROP TABLE oidc_signing_keys`);
  }
}
