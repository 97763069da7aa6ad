import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import type { OAuthScope } from '@switchyard/shared-dto';
import { OAuthClientEntity } from './entities/oauth-client.entity';

export type NewClient = Pick<
  OAuthClientEntity,
  | 'clientId'
  | 'clientName'
  | 'clientType'
  | 'secretHash'
  | 'redirectUris'
  | 'scopes'
  | 'accessTokenTtlSeconds'
  | 'refreshTokenTtlSeconds'
> & { rateLimitRpm?: number | null; scopes: OAuthScope[]; markupPercent?: number };

/** The only code that writes oauth_clients. `{id}` in paths is the numeric id or the public clientId. */
@Injectable()
export class ClientsRepository {
  constructor(@InjectRepository(OAuthClientEntity) private readonly clients: Repository<OAuthClientEntity>) {}

  /**
   * A dynamically registered client (RFC 7591): no owner, so no slot. One INSERT, not `save()` (whose transaction
   * the embedded database breaks under concurrent traffic, docs/database.md); anonymous callers can race here.
   */
  async insertDynamic(client: NewClient): Promise<OAuthClientEntity> {
    const rows: { id: number }[] = await this.clients.query(
      `INSERT INTO oauth_clients (client_id, owner_id, client_name, client_type, secret_hash, redirect_uris, scopes,
                                  access_token_ttl_seconds, refresh_token_ttl_seconds, registration)
       VALUES ($1, NULL, $2, $3, $4, $5, $6, $7, $8, 'dynamic') RETURNING id`,
      [
        client.clientId,
        client.clientName,
        client.clientType,
        client.secretHash,
        client.redirectUris,
        client.scopes,
        client.accessTokenTtlSeconds,
        client.refreshTokenTtlSeconds,
      ],
    );
    return (await this.clients.findOneBy({ id: Number(rows[0].id) }))!;
  }

  /**
   * An owner's client in one statement, in a random free slot of 1-`slots`. The unique (owner, slot) index makes
   * the per-owner limit hold under concurrent creates without a transaction (docs/database.md): two creates that
   * pick the same slot cannot both insert. `full` when every slot is taken, `taken` when another create just
   * took the picked one (the caller tries again).
   */
  async insertOwned(
    client: NewClient & { ownerId: string },
    slots: number,
  ): Promise<OAuthClientEntity | 'full' | 'taken'> {
    const rows: { id: number | null; free: string }[] = await this.clients.query(
      `WITH free AS (
         SELECT s AS slot FROM generate_series(1, $11::int) s
          WHERE NOT EXISTS (SELECT 1 FROM oauth_clients WHERE owner_id = $2 AND slot = s)
          ORDER BY random() LIMIT 1),
       ins AS (
         INSERT INTO oauth_clients (client_id, owner_id, client_name, client_type, secret_hash, redirect_uris, scopes,
                                    access_token_ttl_seconds, refresh_token_ttl_seconds, rate_limit_rpm, registration, slot,
                                    markup_percent)
         SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, 'owner', free.slot, $12 FROM free
         ON CONFLICT ON CONSTRAINT oauth_clients_owner_slot_key DO NOTHING
         RETURNING id)
       SELECT (SELECT id FROM ins) AS id, (SELECT count(*) FROM free) AS free`,
      [
        client.clientId,
        client.ownerId,
        client.clientName,
        client.clientType,
        client.secretHash,
        client.redirectUris,
        client.scopes,
        client.accessTokenTtlSeconds,
        client.refreshTokenTtlSeconds,
        client.rateLimitRpm ?? null,
        slots,
        client.markupPercent ?? 0,
      ],
    );
    if (rows[0]?.id !== null && rows[0]?.id !== undefined)
      return (await this.clients.findOneBy({ id: Number(rows[0].id) }))!;
    return Number(rows[0]?.free ?? 0) === 0 ? 'full' : 'taken';
  }

  /**
   * A space app's client (docs/spaces.md#each-app-an-oauth-client): owned by the app's creator but outside their
   * 50 slots (their apps are bounded by the 100 space apps), public, with a visitor cap. One INSERT.
   */
  async insertSpace(
    client: NewClient & { ownerId: string; visitorMonthlyCapMicros: string },
  ): Promise<OAuthClientEntity> {
    const rows: { id: number }[] = await this.clients.query(
      `INSERT INTO oauth_clients (client_id, owner_id, client_name, client_type, secret_hash, redirect_uris, scopes,
                                  access_token_ttl_seconds, refresh_token_ttl_seconds, registration, visitor_monthly_cap_micros)
       VALUES ($1, $2, $3, 'PUBLIC', NULL, $4, $5, $6, $7, 'owner', $8) RETURNING id`,
      [
        client.clientId,
        client.ownerId,
        client.clientName,
        client.redirectUris,
        client.scopes,
        client.accessTokenTtlSeconds,
        client.refreshTokenTtlSeconds,
        client.visitorMonthlyCapMicros,
      ],
    );
    return (await this.clients.findOneBy({ id: Number(rows[0].id) }))!;
  }

  /** Notes that a token was issued to the client (once: later calls change nothing). */
  async markUsed(id: number): Promise<void> {
    await this.clients.query('UPDATE oauth_clients SET used_at = now() WHERE id = $1 AND used_at IS NULL', [id]);
  }

  /** Deletes dynamic registrations that obtained no token within `hours` of registering; how many went. */
  async deleteUnusedDynamic(hours: number): Promise<number> {
    const [, affected]: [unknown, number] = await this.clients.query(
      `DELETE FROM oauth_clients WHERE registration = 'dynamic' AND used_at IS NULL AND created_at < now() - make_interval(hours => $1)`,
      [hours],
    );
    return affected;
  }

  listByOwner(ownerId: string): Promise<OAuthClientEntity[]> {
    return this.clients.find({ where: { ownerId }, order: { createdAt: 'DESC', id: 'DESC' } });
  }

  /** By numeric id or public clientId. */
  findByRef(ref: string): Promise<OAuthClientEntity | null> {
    return /^\d{1,9}$/.test(ref)
      ? this.clients.findOneBy({ id: Number(ref) })
      : this.clients.findOneBy({ clientId: ref });
  }

  findByClientId(clientId: string): Promise<OAuthClientEntity | null> {
    return this.clients.findOneBy({ clientId });
  }

  findByIds(ids: number[]): Promise<OAuthClientEntity[]> {
    return ids.length
      ? this.clients.createQueryBuilder('c').where('c.id = ANY(:ids)', { ids }).getMany()
      : Promise.resolve([]);
  }

  async update(id: number, changes: Partial<OAuthClientEntity>): Promise<void> {
    await this.clients.update({ id }, changes);
  }

  async delete(id: number): Promise<void> {
    await this.clients.delete({ id });
  }
}
