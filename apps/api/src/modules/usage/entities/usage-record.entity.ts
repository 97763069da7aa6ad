import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import type { USAGE_STATUSES } from '@switchyard/shared-dto';

export type UsageStatus = (typeof USAGE_STATUSES)[number];

/**
 * One gateway call. Written in batches by UsageRecorder with raw SQL; the entity serves reads. The table is
 * partitioned by month of started_at (migration 1763800008000), so its key is (id, started_at) and a call is
 * unique by (request_id, started_at).
 */
@Entity({ name: 'usage_records' })
export class UsageRecordEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ name: 'request_id', type: 'text' })
  requestId: string;

  @Column({ name: 'user_id', type: 'uuid' })
  userId: string;

  @Column({ name: 'api_key_id', type: 'uuid', nullable: true })
  apiKeyId: string | null;

  @Column({ name: 'oauth_client_id', type: 'text', nullable: true })
  oauthClientId: string | null;

  @Column({ name: 'credential_name', type: 'text', nullable: true })
  credentialName: string | null;

  @Column({ type: 'text' })
  method: string;

  @Column({ type: 'text' })
  model: string;

  @Column({ type: 'text', nullable: true })
  provider: string | null;

  /** The answering deployment's model id at its provider (docs/routing.md); null when no provider was reached. */
  @Column({ type: 'text', name: 'upstream_model', nullable: true })
  upstreamModel: string | null;

  @Column({ type: 'boolean' })
  stream: boolean;

  @Column({ type: 'text' })
  status: UsageStatus;

  @Column({ name: 'http_status', type: 'integer' })
  httpStatus: number;

  @Column({ name: 'error_code', type: 'text', nullable: true })
  errorCode: string | null;

  /** Which limit refused the call: 'account', 'key:daily', 'app:per_request', …; null otherwise. */
  @Column({ name: 'refused_limit', type: 'text', nullable: true })
  refusedLimit: string | null;

  @Column({ name: 'prompt_tokens', type: 'integer' })
  promptTokens: number;

  @Column({ name: 'completion_tokens', type: 'integer' })
  completionTokens: number;

  @Column({ name: 'total_tokens', type: 'integer' })
  totalTokens: number;

  // Components of prompt_tokens (cache reads, five-minute and one-hour cache writes) and of completion_tokens
  // (reasoning): docs/pricing.md.
  @Column({ name: 'cache_read_tokens', type: 'integer', default: 0 })
  cacheReadTokens: number;

  @Column({ name: 'cache_write_tokens', type: 'integer', default: 0 })
  cacheWriteTokens: number;

  @Column({ name: 'cache_write_1h_tokens', type: 'integer', default: 0 })
  cacheWrite1hTokens: number;

  @Column({ name: 'reasoning_tokens', type: 'integer', default: 0 })
  reasoningTokens: number;

  // bigint arrives as a string from pg; micro-units (1 currency unit = 1,000,000).
  @Column({ name: 'cost_micros', type: 'bigint' })
  costMicros: string;

  @Column({ name: 'latency_ms', type: 'integer' })
  latencyMs: number;

  /** ms from the start to the answer's first byte; null when no answer began. */
  @Column({ name: 'first_byte_ms', type: 'integer', nullable: true })
  firstByteMs: number | null;

  @Column({ name: 'started_at', type: 'timestamptz' })
  startedAt: Date;

  @Column({ name: 'ended_at', type: 'timestamptz' })
  endedAt: Date;
}
