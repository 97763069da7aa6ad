import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';

/** Which model made a video and whose it is, so later calls that name only the id reach the right provider. */
@Injectable()
export class VideoJobsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async insert(id: string, userId: string, model: string): Promise<void> {
    await this.dataSource.query(
      'INSERT INTO video_jobs (id, user_id, model) VALUES ($1, $2, $3) ON CONFLICT (id) DO NOTHING',
      [id, userId, model],
    );
  }

  /** The model of a video owned by this user; null for an unknown video or another user's (no existence leak). */
  async modelOf(id: string, userId: string): Promise<string | null> {
    const rows: { model: string }[] = await this.dataSource.query(
      'SELECT model FROM video_jobs WHERE id = $1 AND user_id = $2',
      [id, userId],
    );
    return rows[0]?.model ?? null;
  }
}
