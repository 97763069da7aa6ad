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

  /** The app's OAuth client (oauth_clients.id), registered when it was first published; null before. */
  @Column({ name: 'client_pk', type: 'integer', nullable: true })
  clientPk: number | null;

  /** The app this one was remixed from (null when it is gone or there was none); the credit below stays. */
  @Column({ name: 'remix_of_app', type: 'uuid', nullable: true })
  remixOfApp: string | null;

  /** The original's creator, slug and title when the remix was made. */
  @Column({ name: 'remix_of_user', type: 'uuid', nullable: true })
  remixOfUser: string | null;

  @Column({ name: 'remix_of_slug', type: 'text', nullable: true })
  remixOfSlug: string | null;

  @Column({ name: 'remix_of_title', type: 'text', nullable: true })
  remixOfTitle: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
