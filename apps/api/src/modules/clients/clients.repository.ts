import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { OAuthClientEntity } from './entities/oauth-client.entity';

/** The only code that writes oauth_clients. `{id}` in paths is the numeric id or the public clientId. */
@Injectable()
export class ClientsRepository {
  constructor(@InjectRepository(OAuthClientEntity) private readonly clients: Repository<OAuthClientEntity>) {}

  insert(client: Omit<OAuthClientEntity, 'id' | 'createdAt' | 'updatedAt' | 'isActive' | 'requirePkce' | 'rateLimitRpm'> & { rateLimitRpm?: number | null }): Promise<OAuthClientEntity> {
    return this.clients.save(this.clients.create({ ...client, isActive: true, requirePkce: true }));
  }

  listByOwner(ownerId: string): Promise<OAuthClientEntity[]> {
    return this.clients.find({ where: { ownerId }, order: { createdAt: 'DESC', id: 'DESC' } });
  }

  countByOwner(ownerId: string): Promise<number> {
    return this.clients.countBy({ ownerId });
  }

  /** By numeric id or public clientId. */
  findByRef(ref: string): Promise<OAuthClientEntity | null> {
    return /^\d{1,9}$/.test(ref) ? this.clients.findOneBy({ id: Number(ref) }) : this.clients.findOneBy({ clientId: ref });
  }

  findByClientId(clientId: string): Promise<OAuthClientEntity | null> {
    return this.clients.findOneBy({ clientId });
  }

  findByIds(ids: number[]): Promise<OAuthClientEntity[]> {
    return ids.length ? this.clients.createQueryBuilder('c').where('c.id = ANY(:ids)', { ids }).getMany() : Promise.resolve([]);
  }

  async update(id: number, changes: Partial<OAuthClientEntity>): Promise<void> {
    await this.clients.update({ id }, changes);
  }

  async delete(id: number): Promise<void> {
    await this.clients.delete({ id });
  }
}
