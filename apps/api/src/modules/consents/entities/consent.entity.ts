import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { OAuthScope } from '@switchyard/shared-dto';

/** What one user let one app do, and what it may spend (micro-units; null: no cap below the budget). */
@Entity({ name: 'oauth_consents' })
export class ConsentEntity {
  @PrimaryColumn({ name: 'user_id', type: 'uuid' })
  userId: string;

  @PrimaryColumn({ name: 'client_pk', type: 'integer' })
  clientPk: number;

  @Column({ type: 'text', array: true })
  scopes: OAuthScope[];

  @Column({ name: 'granted_at', type: 'timestamptz' })
  grantedAt: Date;

  @Column({ name: 'last_used_at', type: 'timestamptz', nullable: true })
  lastUsedAt: Date | null;

  @Column({ name: 'limit_total_micros', type: 'bigint', nullable: true })
  limitTotalMicros: string | null;

  @Column({ name: 'limit_daily_micros', type: 'bigint', nullable: true })
  limitDailyMicros: string | null;

  @Column({ name: 'limit_weekly_micros', type: 'bigint', nullable: true })
  limitWeeklyMicros: string | null;

  @Column({ name: 'limit_monthly_micros', type: 'bigint', nullable: true })
  limitMonthlyMicros: string | null;

  @Column({ name: 'limit_per_request_micros', type: 'bigint', nullable: true })
  limitPerRequestMicros: string | null;
}
