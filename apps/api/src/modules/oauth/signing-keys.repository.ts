import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { NewSigningKey, PublicJwk } from './jose';

export interface StoredSigningKey {
  kid: string;
  period: number;
  publicJwk: PublicJwk;
  stored: string;
}

/** The only code that touches oidc_signing_keys. One statement each; `period` is unique, so racing inserts keep one. */
@Injectable()
export class SigningKeysRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** Inserts the period's key unless another instance already did; true when this one was stored. */
  async insert(period: number, key: NewSigningKey): Promise<boolean> {
    const rows: unknown[] = await this.dataSource.query(
      `INSERT INTO oidc_signing_keys (kid, alg, period, public_jwk, private_key) VALUES ($1, 'RS256', $2, $3, $4)
       ON CONFLICT (period) DO NOTHING RETURNING kid`,
      [key.kid, period, JSON.stringify(key.publicJwk), key.stored],
    );
    return rows.length > 0;
  }

  /** The keys of `fromPeriod` and later, newest first. */
  async list(fromPeriod: number): Promise<StoredSigningKey[]> {
    const rows: { kid: string; period: string; public_jwk: PublicJwk | string; private_key: string }[] =
      await this.dataSource.query(
        `SELECT kid, period, public_jwk, private_key FROM oidc_signing_keys WHERE period >= $1 ORDER BY period DESC`,
        [fromPeriod],
      );
    return rows.map((row) => ({
      kid: row.kid,
      period: Number(row.period),
      publicJwk: typeof row.public_jwk === 'string' ? (JSON.parse(row.public_jwk) as PublicJwk) : row.public_jwk,
      stored: row.private_key,
    }));
  }

  /** Keys no ID token still alive can have been signed with. */
  async deleteBefore(period: number): Promise<void> {
    await this.dataSource.query(`DELETE FROM oidc_signing_keys WHERE period < $1`, [period]);
  }

  /** A key this instance cannot open (sealed with another OIDC_KEY_SECRET), so that the period gets a new one. */
  async delete(kid: string): Promise<void> {
    await this.dataSource.query(`DELETE FROM oidc_signing_keys WHERE kid = $1`, [kid]);
  }
}
