import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn } from 'typeorm';
import { SpendLimitColumns } from '../../../common/spend-limits';

/**
 * An API key. The key itself is never stored: its SHA-256, and its first 12 and last 4 characters for display.
 * Its spend caps come from SpendLimitColumns.
 */
@Entity({ name: 'api_keys' })
export class ApiKeyEntity extends SpendLimitColumns {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ name: 'user_id', type: 'uuid' })
  userId: string;

  @Column({ type: 'text' })
  name: string;

  @Column({ name: 'key_hash', type: 'text', unique: true })
  keyHash: string;

  @Column({ name: 'key_start', type: 'text' })
  keyStart: string;

  @Column({ name: 'key_end', type: 'text' })
  keyEnd: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @Column({ name: 'last_used_at', type: 'timestamptz', nullable: true })
  lastUsedAt: Date | null;

  @Column({ name: 'revoked_at', type: 'timestamptz', nullable: true })
  revokedAt: Date | null;

  @Column({ name: 'rate_limit_rpm', type: 'integer', nullable: true })
  rateLimitRpm: number | null;

  /** When the key stops working (the gateway checks it on every call, cached or not); null: never. */
  @Column({ name: 'expires_at', type: 'timestamptz', nullable: true })
  expiresAt: Date | null;

  /** The user's dashboard key (docs/dashboard.md): at most one live per user; its secret was never shown. */
  @Column({ type: 'boolean', default: false })
  dashboard: boolean;
}
