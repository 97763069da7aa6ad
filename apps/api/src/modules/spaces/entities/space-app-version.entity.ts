import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

/** One page a model wrote for an app. Versions are kept so an edit can be undone (back to its parent). */
@Entity({ name: 'space_app_versions' })
export class SpaceAppVersionEntity {
  @PrimaryColumn({ name: 'app_id', type: 'uuid' })
  appId: string;

  @PrimaryColumn({ type: 'integer' })
  version: number;

  /** The version this one revised (null for the first page). */
  @Column({ name: 'parent_version', type: 'integer', nullable: true })
  parentVersion: number | null;

  @Column({ type: 'text' })
  kind: 'generate' | 'edit' | 'remix';

  @Column({ type: 'text' })
  prompt: string;

  @Column({ type: 'text' })
  model: string;

  /** The page's <title>, or the app's title when the page has none. */
  @Column({ type: 'text' })
  title: string;

  @Column({ type: 'text' })
  html: string;

  /** The gateway call that wrote it (its usage record and ledger entry carry the same id). */
  @Column({ name: 'request_id', type: 'text', nullable: true })
  requestId: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
