import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { OAuthScope } from '@switchyard/shared-dto';
import { SpendLimitColumns } from '../../../common/spend-limits';

/** What one user let one app do, and what it may spend (the caps of SpendLimitColumns). */
@Entity({ name: 'oauth_consents' })
export class ConsentEntity extends SpendLimitColumns {
  @PrimaryColumn({ name: 'user_id', type: 'uuid' })
  userId: string;

  @PrimaryColumn({ name: 'client_pk', type: 'integer' })
  clientPk: number;

  @Column({ type: 'text', array: true })
  scopes: OAuthScope[];

  /** The markup this user agreed to (docs/earnings.md): the app's calls for them are priced at no more. */
  @Column({ name: 'markup_percent', type: 'integer', default: 0 })
  markupPercent: number;

  @Column({ name: 'granted_at', type: 'timestamptz' })
  grantedAt: Date;

  @Column({ name: 'last_used_at', type: 'timestamptz', nullable: true })
  lastUsedAt: Date | null;
}
