import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

/**
 * Every handle an account has held, its current one included. The primary key keeps a handle with its first
 * account for good, so a released handle is never handed to someone else while its old URLs resolve.
 */
@Entity({ name: 'user_handles' })
export class UserHandleEntity {
  @PrimaryColumn({ type: 'text' })
  handle: string;

  @Column({ name: 'user_id', type: 'uuid' })
  userId: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
