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
}

/** The only code that touches api_keys. Every lookup by id also takes the owner. */
@Injectable()
export class KeysRepository {
  constructor(@InjectRepository(ApiKeyEntity) private readonly keys: Repository<ApiKeyEntity>) {}

  insert(key: Pick<ApiKeyEntity, 'userId' | 'name' | 'keyHash' | 'keyStart' | 'keyEnd'>): Promise<ApiKeyEntity> {
    return this.keys.save(this.keys.create({ ...key, lastUsedAt: null, revokedAt: null }));
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

  /** Marks the key revoked; returns false when it was already revoked. */
  async revoke(userId: string, id: string): Promise<boolean> {
    const result = await this.keys.update({ id, userId, revokedAt: IsNull() }, { revokedAt: () => 'now()' });
    return (result.affected ?? 0) > 0;
  }

  /** The hot-path lookup: one indexed query, raw, no entity hydration. */
  async findActiveByHash(keyHash: string): Promise<ActiveKey | null> {
    const rows = await hotQuery<{ id: string; user_id: string; name: string; rate_limit_rpm: number | null }>(
      this.keys.manager.connection,
      'sy_key_by_hash',
      'SELECT id, user_id, name, rate_limit_rpm FROM api_keys WHERE key_hash = $1 AND revoked_at IS NULL',
      [keyHash],
    );
    return rows[0]
      ? { id: rows[0].id, userId: rows[0].user_id, name: rows[0].name, rateLimitRpm: rows[0].rate_limit_rpm }
      : null;
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
