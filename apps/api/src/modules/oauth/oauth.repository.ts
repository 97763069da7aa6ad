import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import type { OAuthScope } from '@switchyard/shared-dto';
import { hotQuery } from '../../database/hot-path';

export interface CodeRow {
  clientPk: number;
  userId: string;
  redirectUri: string;
  scopes: OAuthScope[];
  codeChallenge: string;
  expired: boolean;
  grantId: string | null;
}

export interface IssuedTokenHashes {
  accessHash: string;
  accessTtlSeconds: number;
  refreshHash: string;
  refreshTtlSeconds: number;
}

/** What an access token stands for, as the hot path needs it. */
export interface AccessTokenRow {
  grantId: string;
  userId: string;
  clientPk: number;
  clientId: string;
  clientName: string;
  scopes: OAuthScope[];
  expiresAt: Date;
  issuedAt: Date;
}

export type RefreshOutcome =
  | { status: 'rotated'; grantId: string; clientPk: number; userId: string; scopes: OAuthScope[] }
  | { status: 'reused'; grantId: string; clientPk: number }
  | { status: 'invalid' };

/**
 * The only code that touches oauth_codes, oauth_grants and oauth_tokens. Every single-use step is one
 * conditional UPDATE, so two racing requests cannot both use a code or a refresh token. Token lookups join
 * oauth_clients read-only (a deactivated client's tokens stop at once without touching its tokens).
 */
@Injectable()
export class OAuthRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async insertCode(codeHash: string, code: Omit<CodeRow, 'expired' | 'grantId'>, ttlSeconds: number): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO oauth_codes (code_hash, client_pk, user_id, redirect_uri, scopes, code_challenge, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, now() + make_interval(secs => $7))`,
      [codeHash, code.clientPk, code.userId, code.redirectUri, code.scopes, code.codeChallenge, ttlSeconds],
    );
  }

  /**
   * Uses the code up (whatever happens next, it never works again). `fresh` is false when it had been used
   * before: a replay, whose grant the caller then revokes.
   */
  async consumeCode(codeHash: string): Promise<{ fresh: boolean; code: CodeRow } | null> {
    // TypeORM answers an UPDATE with [rows, affected].
    const [used]: [Record<string, unknown>[], number] = await this.dataSource.query(
      `UPDATE oauth_codes SET used_at = now() WHERE code_hash = $1 AND used_at IS NULL
       RETURNING client_pk, user_id, redirect_uri, scopes, code_challenge, expires_at <= now() AS expired, grant_id`,
      [codeHash],
    );
    if (used[0]) return { fresh: true, code: toCode(used[0]) };
    const replay: Record<string, unknown>[] = await this.dataSource.query(
      `SELECT client_pk, user_id, redirect_uri, scopes, code_challenge, expires_at <= now() AS expired, grant_id FROM oauth_codes WHERE code_hash = $1`,
      [codeHash],
    );
    return replay[0] ? { fresh: false, code: toCode(replay[0]) } : null;
  }

  /**
   * Starts a grant from a code and issues its first pair. Fails (returns null) when the consent is gone:
   * revoked between the authorization and the exchange.
   */
  async startGrant(codeHash: string, code: CodeRow, tokens: IssuedTokenHashes): Promise<string | null> {
    return this.dataSource.transaction(async (manager) => {
      const consent: unknown[] = await manager.query('SELECT 1 FROM oauth_consents WHERE user_id = $1 AND client_pk = $2 FOR SHARE', [code.userId, code.clientPk]);
      if (!consent.length) return null;
      const [grant]: { id: string }[] = await manager.query(
        'INSERT INTO oauth_grants (user_id, client_pk, scopes) VALUES ($1, $2, $3) RETURNING id',
        [code.userId, code.clientPk, code.scopes],
      );
      await manager.query('UPDATE oauth_codes SET grant_id = $2 WHERE code_hash = $1', [codeHash, grant.id]);
      await this.insertPair(manager, grant.id, tokens);
      return grant.id;
    });
  }

  /**
   * Rotates a refresh token: marks it used and issues a new pair in its grant, in one transaction. A token used
   * before is a replay (`reused`); an expired, revoked or unknown one, or one of a dead grant, is `invalid`.
   * `scopes` maps the grant's scopes to the new pair's (and throws to refuse).
   */
  async rotateRefresh(refreshHash: string, clientPk: number, scopes: (granted: OAuthScope[]) => OAuthScope[], tokens: IssuedTokenHashes): Promise<RefreshOutcome> {
    return this.dataSource.transaction(async (manager) => {
      const rows: Record<string, unknown>[] = await manager.query(
        `SELECT t.grant_id, t.used_at IS NOT NULL AS used, t.revoked_at IS NOT NULL OR t.expires_at <= now() AS dead,
                g.client_pk, g.user_id, g.scopes, g.revoked_at IS NOT NULL AS grant_dead, c.is_active
           FROM oauth_tokens t JOIN oauth_grants g ON g.id = t.grant_id JOIN oauth_clients c ON c.id = g.client_pk
          WHERE t.token_hash = $1 AND t.kind = 'refresh'
          FOR UPDATE OF t, g`,
        [refreshHash],
      );
      const row = rows[0];
      if (!row || Number(row.client_pk) !== clientPk) return { status: 'invalid' };
      if (row.grant_dead || !row.is_active) return { status: 'invalid' };
      if (row.used) return { status: 'reused', grantId: String(row.grant_id), clientPk };
      if (row.dead) return { status: 'invalid' };
      const grantId = String(row.grant_id);
      // May throw (a scope beyond the grant): the transaction rolls back and the refresh token stays usable.
      const issued = scopes(parseArray(row.scopes));
      await manager.query('UPDATE oauth_tokens SET used_at = now() WHERE token_hash = $1', [refreshHash]);
      await this.insertPair(manager, grantId, tokens, issued);
      return { status: 'rotated', grantId, clientPk, userId: String(row.user_id), scopes: issued };
    });
  }

  /** Ends a grant and with it every token of the chain. */
  async revokeGrant(grantId: string, reason: string): Promise<void> {
    await this.dataSource.query(
      'UPDATE oauth_grants SET revoked_at = now(), revoked_reason = $2 WHERE id = $1 AND revoked_at IS NULL',
      [grantId, reason],
    );
  }

  /** Revokes one token (RFC 7009): a refresh token ends its grant, an access token only itself. */
  async revokeToken(tokenHash: string): Promise<{ kind: 'access' | 'refresh'; grantId: string } | null> {
    const [rows]: [{ kind: 'access' | 'refresh'; grant_id: string }[], number] = await this.dataSource.query(
      'UPDATE oauth_tokens SET revoked_at = COALESCE(revoked_at, now()) WHERE token_hash = $1 RETURNING kind, grant_id',
      [tokenHash],
    );
    if (!rows[0]) return null;
    if (rows[0].kind === 'refresh') await this.revokeGrant(rows[0].grant_id, 'revoked');
    return { kind: rows[0].kind, grantId: rows[0].grant_id };
  }

  /** A live token: not expired, not revoked, its grant alive, its client active. One indexed query. */
  async findLiveToken(tokenHash: string, kind: 'access' | 'refresh'): Promise<AccessTokenRow | null> {
    const rows = await hotQuery<Record<string, unknown>>(
      this.dataSource,
      `sy_oauth_${kind}`,
      `SELECT t.grant_id, t.expires_at, t.created_at, g.user_id, g.client_pk, COALESCE(t.scopes, g.scopes) AS scopes, c.client_id, c.client_name
         FROM oauth_tokens t JOIN oauth_grants g ON g.id = t.grant_id JOIN oauth_clients c ON c.id = g.client_pk
        WHERE t.token_hash = $1 AND t.kind = '${kind}' AND t.revoked_at IS NULL AND t.used_at IS NULL AND t.expires_at > now()
          AND g.revoked_at IS NULL AND c.is_active`,
      [tokenHash],
    );
    const row = rows[0];
    if (!row) return null;
    return {
      grantId: String(row.grant_id),
      userId: String(row.user_id),
      clientPk: Number(row.client_pk),
      clientId: String(row.client_id),
      clientName: String(row.client_name),
      scopes: parseArray(row.scopes),
      expiresAt: row.expires_at as Date,
      issuedAt: row.created_at as Date,
    };
  }

  /** Removes codes and tokens that can never work again (expired a day ago). */
  async purgeExpired(): Promise<void> {
    await this.dataSource.query(`DELETE FROM oauth_codes WHERE expires_at < now() - interval '1 day'`);
    await this.dataSource.query(`DELETE FROM oauth_tokens WHERE expires_at < now() - interval '1 day'`);
  }

  /** An access token narrower than its grant (a refresh that asked for less) carries its own scopes. */
  private async insertPair(manager: EntityManager, grantId: string, tokens: IssuedTokenHashes, accessScopes: OAuthScope[] | null = null): Promise<void> {
    await manager.query(
      `INSERT INTO oauth_tokens (token_hash, grant_id, kind, expires_at, scopes)
       VALUES ($1, $3, 'access', now() + make_interval(secs => $4), $6), ($2, $3, 'refresh', now() + make_interval(secs => $5), NULL)`,
      [tokens.accessHash, tokens.refreshHash, grantId, tokens.accessTtlSeconds, tokens.refreshTtlSeconds, accessScopes],
    );
  }
}

/** Arrays come back parsed from the pg driver, except through paths that return the text form. */
function parseArray(value: unknown): OAuthScope[] {
  if (Array.isArray(value)) return value as OAuthScope[];
  return String(value ?? '').replace(/^\{|\}$/g, '').split(',').filter(Boolean) as OAuthScope[];
}

function toCode(row: Record<string, unknown>): CodeRow {
  return {
    clientPk: Number(row.client_pk),
    userId: String(row.user_id),
    redirectUri: String(row.redirect_uri),
    scopes: parseArray(row.scopes),
    codeChallenge: String(row.code_challenge),
    expired: Boolean(row.expired),
    grantId: (row.grant_id as string | null) ?? null,
  };
}
