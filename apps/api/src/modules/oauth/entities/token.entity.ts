import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

/** An access or refresh token of a grant, stored only as its SHA-256. A used refresh token has `usedAt`. */
@Entity({ name: 'oauth_tokens' })
export class TokenEntity {
  @PrimaryColumn({ name: 'token_hash', type: 'text' })
  tokenHash: string;

  @Column({ name: 'grant_id', type: 'uuid' })
  grantId: string;

  @Column({ type: 'text' })
  kind: 'access' | 'refresh';

  /** Set when an access token is narrower than its grant; otherwise the grant's scopes apply. */
  @Column({ type: 'text', array: true, nullable: true })
  scopes: string[] | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @Column({ name: 'expires_at', type: 'timestamptz' })
  expiresAt: Date;

  @Column({ name: 'used_at', type: 'timestamptz', nullable: true })
  usedAt: Date | null;

  @Column({ name: 'revoked_at', type: 'timestamptz', nullable: true })
  revokedAt: Date | null;
}
