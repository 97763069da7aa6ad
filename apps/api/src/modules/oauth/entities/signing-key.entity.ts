import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

/** A key that signs ID tokens (docs/oauth.md#openid-connect): one per rotation period. */
@Entity({ name: 'oidc_signing_keys' })
export class SigningKeyEntity {
  @PrimaryColumn({ type: 'text' })
  kid: string;

  @Column({ type: 'text' })
  alg: 'RS256';

  /** The rotation period it signs in (whole periods since 1970); unique. */
  @Column({ type: 'bigint' })
  period: string;

  /** The public key as a JWK, published at the JWKS URI. */
  @Column({ name: 'public_jwk', type: 'jsonb' })
  publicJwk: Record<string, unknown>;

  /** `aes-256-gcm:…` (encrypted with OIDC_KEY_SECRET) or `pkcs8:…`; never served. */
  @Column({ name: 'private_key', type: 'text' })
  privateKey: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
