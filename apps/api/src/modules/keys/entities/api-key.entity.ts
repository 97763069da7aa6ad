import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn } from 'typeorm';

/** An API key. The key itself is never stored: its SHA-256, and its first 12 and last 4 characters for display. */
@Entity({ name: 'api_keys' })
export class ApiKeyEntity {
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

  // Spend limits in micro-units (bigint arrives as a string); enforced by sy_reserve.
  @Column({ name: 'limit_total_micros', type: 'bigint', nullable: true })
  limitTotalMicros: string | null;

  @Column({ name: 'limit_daily_micros', type: 'bigint', nullable: true })
  limitDailyMicros: string | null;

  @Column({ name: 'limit_weekly_micros', type: 'bigint', nullable: true })
  limitWeeklyMicros: string | null;

  @Column({ name: 'limit_monthly_micros', type: 'bigint', nullable: true })
  limitMonthlyMicros: string | null;

  @Column({ name: 'rate_limit_rpm', type: 'integer', nullable: true })
  rateLimitRpm: number | null;

  @Column({ name: 'limit_per_request_micros', type: 'bigint', nullable: true })
  limitPerRequestMicros: string | null;
}
