import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';
import type { OAuthScope } from '@switchyard/shared-dto';

/** A single-use authorization code (docs/decisions.md#names-and-defaults: 60 s, bound to client, redirect URI, PKCE and user). */
@Entity({ name: 'oauth_codes' })
export class AuthorizationCodeEntity {
  @PrimaryColumn({ name: 'code_hash', type: 'text' })
  codeHash: string;

  @Column({ name: 'client_pk', type: 'integer' })
  clientPk: number;

  @Column({ name: 'user_id', type: 'uuid' })
  userId: string;

  @Column({ name: 'redirect_uri', type: 'text' })
  redirectUri: string;

  @Column({ type: 'text', array: true })
  scopes: OAuthScope[];

  @Column({ name: 'code_challenge', type: 'text' })
  codeChallenge: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @Column({ name: 'expires_at', type: 'timestamptz' })
  expiresAt: Date;

  @Column({ name: 'used_at', type: 'timestamptz', nullable: true })
  usedAt: Date | null;

  /** The grant this code's exchange started, so a replayed code can end it (RFC 6749 section 4.1.2). */
  @Column({ name: 'grant_id', type: 'uuid', nullable: true })
  grantId: string | null;

  /** OpenID Connect: the request's nonce, echoed in the ID token. */
  @Column({ type: 'text', nullable: true })
  nonce: string | null;
}
