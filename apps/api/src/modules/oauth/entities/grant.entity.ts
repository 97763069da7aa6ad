import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn } from 'typeorm';
import type { OAuthScope } from '@switchyard/shared-dto';

/**
 * One authorization of one app by one user: the chain of rotating refresh tokens that started with one code.
 * Revoking it (refresh-token reuse, code reuse, revocation of a refresh token) ends every token of the chain.
 */
@Entity({ name: 'oauth_grants' })
export class GrantEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ name: 'user_id', type: 'uuid' })
  userId: string;

  @Column({ name: 'client_pk', type: 'integer' })
  clientPk: number;

  @Column({ type: 'text', array: true })
  scopes: OAuthScope[];

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @Column({ name: 'revoked_at', type: 'timestamptz', nullable: true })
  revokedAt: Date | null;

  @Column({ name: 'revoked_reason', type: 'text', nullable: true })
  revokedReason: string | null;
}
