import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';
import type { SpaceAppStatus } from '@switchyard/shared-dto';

/** A space app: what its owner asked for, its state, and which kept version is served. */
@Entity({ name: 'space_apps' })
export class SpaceAppEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ name: 'user_id', type: 'uuid' })
  userId: string;

  /** Unique among the owner's apps; part of the app's public URL. */
  @Column({ type: 'text' })
  slug: string;

  @Column({ type: 'text' })
  title: string;

  /** Whether the owner named the app: then a new page's <title> does not replace its title. */
  @Column({ name: 'title_set_by_user', type: 'boolean', default: false })
  titleSetByUser: boolean;

  @Column({ type: 'text' })
  prompt: string;

  @Column({ type: 'text', array: true })
  models: string[];

  @Column({ type: 'text' })
  status: SpaceAppStatus;

  /** Why the last job failed (the app keeps its previous page when an edit fails). */
  @Column({ type: 'text', nullable: true })
  error: string | null;

  @Column({ type: 'boolean', default: false })
  published: boolean;

  @Column({ name: 'current_version', type: 'integer', nullable: true })
  currentVersion: number | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
