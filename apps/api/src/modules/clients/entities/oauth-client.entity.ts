import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';
import type { OAuthScope } from '@switchyard/shared-dto';
import type { OAuthClient } from '../oauth-client';

/** A registered OAuth2 app. A confidential client's secret is kept only as its SHA-256. */
@Entity({ name: 'oauth_clients' })
export class OAuthClientEntity implements OAuthClient {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'client_id', type: 'text', unique: true })
  clientId: string;

  /** Null for a client registered dynamically (RFC 7591), which no account owns. */
  @Column({ name: 'owner_id', type: 'uuid', nullable: true })
  ownerId: string | null;

  @Column({ name: 'client_name', type: 'text' })
  clientName: string;

  @Column({ name: 'client_type', type: 'text' })
  clientType: 'PUBLIC' | 'CONFIDENTIAL';

  @Column({ name: 'secret_hash', type: 'text', nullable: true })
  secretHash: string | null;

  @Column({ name: 'redirect_uris', type: 'text', array: true })
  redirectUris: string[];

  @Column({ type: 'text', array: true })
  scopes: OAuthScope[];

  @Column({ name: 'access_token_ttl_seconds', type: 'integer' })
  accessTokenTtlSeconds: number;

  @Column({ name: 'refresh_token_ttl_seconds', type: 'integer' })
  refreshTokenTtlSeconds: number;

  @Column({ name: 'require_pkce', type: 'boolean', default: true })
  requirePkce: boolean;

  /**
   * A first-party app that an admin marked trusted: its users are not asked for consent. Owners cannot set it
   * (the old `require_consent` column stays true and is not read any more).
   */
  @Column({ type: 'boolean', default: false })
  trusted: boolean;

  @Column({ name: 'is_active', type: 'boolean', default: true })
  isActive: boolean;

  /** Gateway requests per minute for each user of the app; null: GATEWAY_RPM. */
  @Column({ name: 'rate_limit_rpm', type: 'integer', nullable: true })
  rateLimitRpm: number | null;

  /** The app's markup on its users' calls, whole percent 0..300 (docs/earnings.md). */
  @Column({ name: 'markup_percent', type: 'integer', default: 0 })
  markupPercent: number;

  @Column({ type: 'text', default: 'owner' })
  registration: 'owner' | 'dynamic';

  /** When a token was first issued to the app; a dynamic registration unused for a day is ignored, then deleted. */
  @Column({ name: 'used_at', type: 'timestamptz', nullable: true })
  usedAt: Date | null;

  /**
   * The monthly cap (micro-units) a new user's consent starts with, unless the user sets another: a space app's
   * visitors get a small one (docs/spaces.md#each-app-an-oauth-client); null for other apps.
   */
  @Column({ name: 'visitor_monthly_cap_micros', type: 'bigint', nullable: true })
  visitorMonthlyCapMicros: string | null;

  /** Which of its owner's 50 places the app holds (unique per owner); null for a dynamic registration. */
  @Column({ type: 'smallint', nullable: true })
  slot: number | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
