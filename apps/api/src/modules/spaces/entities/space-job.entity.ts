import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

export type SpaceJobStatus = 'queued' | 'running' | 'done' | 'failed';

/**
 * A generation or an edit, as a row: its status is the job's state. An instance claims a queued job (or one
 * whose lease ran out because its instance died) with a conditional UPDATE, and renews the lease while it runs.
 */
@Entity({ name: 'space_jobs' })
export class SpaceJobEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ name: 'app_id', type: 'uuid' })
  appId: string;

  @Column({ name: 'user_id', type: 'uuid' })
  userId: string;

  @Column({ type: 'text' })
  kind: 'generate' | 'edit';

  @Column({ type: 'text' })
  prompt: string;

  @Column({ type: 'text', array: true })
  models: string[];

  /** For an edit: the version it revises. */
  @Column({ name: 'base_version', type: 'integer', nullable: true })
  baseVersion: number | null;

  @Column({ type: 'text' })
  status: SpaceJobStatus;

  /** One of the user's job slots while queued or running (unique per user then): the per-user limit. */
  @Column({ type: 'smallint', nullable: true })
  slot: number | null;

  @Column({ type: 'integer' })
  attempts: number;

  @Column({ name: 'claimed_by', type: 'text', nullable: true })
  claimedBy: string | null;

  @Column({ name: 'lease_until', type: 'timestamptz', nullable: true })
  leaseUntil: Date | null;

  @Column({ type: 'text', nullable: true })
  error: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
