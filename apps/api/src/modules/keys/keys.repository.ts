import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { IsNull, Repository } from 'typeorm';
import type { LimitColumns } from '../../common/spend-limits';
import { hotQuery } from '../../database/hot-path';
import { ApiKeyEntity } from './entities/api-key.entity';

export interface ActiveKey {
  id: string;
  userId: string;
  name: string;
  rateLimitRpm: number | null;
  /** Milliseconds since the epoch; null: never. Checked on every use, so a cached key expires on time. */
  expiresAt: number | null;
  keyHash: string;
}

interface ActiveKeyRow {
  id: string;
  user_id: string;
  name: string;
  rate_limit_rpm: number | null;
  expires_at: Date | null;
  key_hash: string;
}

const ACTIVE_KEY_COLUMNS = 'id, user_id, name, rate_limit_rpm, expires_at, key_hash';

const toActiveKey = (row: ActiveKeyRow | undefined): ActiveKey | null =>
  row
    ? {
        id: row.id,
        userId: row.user_id,
        name: row.name,
        rateLimitRpm: row.rate_limit_rpm,
        expiresAt: row.expires_at ? new Date(row.expires_at).getTime() : null,
        keyHash: row.key_hash,
      }
    : null;

export type NewKey = Pick<ApiKeyEntity, 'userId' | 'name' | 'keyHash' | 'keyStart' | 'keyEnd'> &
  Partial<LimitColumns> &
  Partial<Pick<ApiKeyEntity, 'rateLimitRpm' | 'expiresAt'>>;

/** The only code that touches api_keys. Every lookup by id also takes the owner. */
@Injectable()
export class KeysRepository {
  constructor(@InjectRepository(ApiKeyEntity) private readonly keys: Repository<ApiKeyEntity>) {}

  insert(key: NewKey): Promise<ApiKeyEntity> {
    return this.keys.save(this.keys.create({ ...key, lastUsedAt: null, revokedAt: null }));
  }

  async rename(userId: string, id: string, name: string): Promise<void> {
    await this.keys.update({ id, userId }, { name });
  }

  /**
   * The user's live dashboard key, made on first use. Two requests at once (two tabs) both insert; the partial
   * unique index (api_keys_dashboard_idx) lets one row in and the other insert does nothing, so both read it.
   */
  async dashboardKey(key: Pick<NewKey, 'userId' | 'name' | 'keyHash' | 'keyStart' | 'keyEnd'>): Promise<ActiveKey> {
    const find = () =>
      this.keys.query<ActiveKeyRow[]>(
        `SELECT ${ACTIVE_KEY_COLUMNS} FROM api_keys WHERE user_id = $1 AND dashboard AND revoked_at IS NULL`,
        [key.userId],
      );
    const found = toActiveKey((await find())[0]);
    if (found) return found;
    await this.keys.query(
      `INSERT INTO api_keys (user_id, name, key_hash, key_start, key_end, dashboard) VALUES ($1, $2, $3, $4, $5, true)
       ON CONFLICT (user_id) WHERE dashboard AND revoked_at IS NULL DO NOTHING`,
      [key.userId, key.name, key.keyHash, key.keyStart, key.keyEnd],
    );
    return toActiveKey((await find())[0])!;
  }

  listByOwner(userId: string): Promise<ApiKeyEntity[]> {
    return this.keys.find({ where: { userId }, order: { createdAt: 'DESC' } });
  }

  countActive(userId: string): Promise<number> {
    return this.keys.countBy({ userId, revokedAt: IsNull() });
  }

  findOwned(userId: string, id: string): Promise<ApiKeyEntity | null> {
    return this.keys.findOneBy({ id, userId });
  }

  /** The hashes of every live key of the user (for dropping them from every instance's cache). */
  async hashesOf(userId: string): Promise<string[]> {
    const rows: Array<{ key_hash: string }> = await this.keys.query(
      `SELECT key_hash FROM api_keys WHERE user_id = $1 AND revoked_at IS NULL`,
      [userId],
    );
    return rows.map((row) => row.key_hash);
  }

  /** Revokes every live key of the user; answers their hashes. */
  async revokeAll(userId: string): Promise<string[]> {
    const [rows]: [Array<{ key_hash: string }>, number] = await this.keys.query(
      `UPDATE api_keys SET revoked_at = now() WHERE user_id = $1 AND revoked_at IS NULL RETURNING key_hash`,
      [userId],
    );
    return rows.map((row) => row.key_hash);
  }

  /** Marks the key revoked; returns false when it was already revoked. */
  async revoke(userId: string, id: string): Promise<boolean> {
    const result = await this.keys.update({ id, userId, revokedAt: IsNull() }, { revokedAt: () => 'now()' });
    return (result.affected ?? 0) > 0;
  }

  /** The hot-path lookup: one indexed query, raw, no entity hydration. */
  async findActiveByHash(keyHash: string): Promise<ActiveKey | null> {
    const rows = await hotQuery<ActiveKeyRow>(
      this.keys.manager.connection,
      'sy_key_by_hash',
      // A key of an account an operator disabled is unknown while it is disabled (users is accounts' table).
      `SELECT ${ACTIVE_KEY_COLUMNS} FROM api_keys WHERE key_hash = $1 AND revoked_at IS NULL
          AND NOT EXISTS (SELECT 1 FROM users u WHERE u.id = api_keys.user_id AND u.disabled_at IS NOT NULL)`,
      [keyHash],
    );
    return toActiveKey(rows[0]);
  }

  async setLimits(
    userId: string,
    id: string,
    limits: Partial<LimitColumns> & { rateLimitRpm?: number | null },
  ): Promise<void> {
    if (Object.keys(limits).length) await this.keys.update({ id, userId }, limits);
  }

  async touch(ids: string[]): Promise<void> {
    if (ids.length) await this.keys.query('UPDATE api_keys SET last_used_at = now() WHERE id = ANY($1::uuid[])', [ids]);
  }
}
