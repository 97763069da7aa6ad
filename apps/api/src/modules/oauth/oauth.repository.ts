import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
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
  /** OpenID Connect: the authorization request's nonce. */
  nonce: string | null;
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
  rateLimitRpm: number | null;
  /**
   * The markup this user's calls through the app are priced at: the app's, but never more than the user agreed to
   * on the consent page (docs/earnings.md); 0 without a consent.
   */
  markupPercent: number;
}

export type RefreshOutcome =
  | { status: 'rotated'; grantId: string; clientPk: number; userId: string; scopes: OAuthScope[]; retried: boolean }
  | { status: 'reused'; grantId: string; clientPk: number }
  | { status: 'scope_exceeded'; granted: OAuthScope[] }
  | { status: 'invalid' };

/**
 * The only code that touches oauth_codes, oauth_grants and oauth_tokens. Every step is one statement, and every
 * single-use step a conditional UPDATE, so two racing requests cannot both use a code or a refresh token. Token lookups join
 * oauth_clients read-only (a deactivated client's tokens stop at once without touching its tokens).
 */
@Injectable()
export class OAuthRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async insertCode(codeHash: string, code: Omit<CodeRow, 'expired' | 'grantId'>, ttlSeconds: number): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO oauth_codes (code_hash, client_pk, user_id, redirect_uri, scopes, code_challenge, expires_at, nonce)
       VALUES ($1, $2, $3, $4, $5, $6, now() + make_interval(secs => $7), $8)`,
      [codeHash, code.clientPk, code.userId, code.redirectUri, code.scopes, code.codeChallenge, ttlSeconds, code.nonce],
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
       RETURNING client_pk, user_id, redirect_uri, scopes, code_challenge, expires_at <= now() AS expired, grant_id, nonce`,
      [codeHash],
    );
    if (used[0]) return { fresh: true, code: toCode(used[0]) };
    const replay: Record<string, unknown>[] = await this.dataSource.query(
      `SELECT client_pk, user_id, redirect_uri, scopes, code_challenge, expires_at <= now() AS expired, grant_id, nonce FROM oauth_codes WHERE code_hash = $1`,
      [codeHash],
    );
    return replay[0] ? { fresh: false, code: toCode(replay[0]) } : null;
  }

  /**
   * Starts a grant from a code and issues its first pair, in one statement (the embedded database breaks explicit
   * transactions that run alongside other traffic: docs/database.md). Returns null when the consent is gone:
   * revoked between the authorization and the exchange.
   */
  async startGrant(codeHash: string, code: CodeRow, tokens: IssuedTokenHashes): Promise<string | null> {
    try {
      const rows: { id: string }[] = await this.dataSource.query(
        `WITH consent AS (SELECT 1 FROM oauth_consents WHERE user_id = $1 AND client_pk = $2 FOR SHARE),
              g AS (INSERT INTO oauth_grants (user_id, client_pk, scopes) SELECT $1, $2, $3 FROM consent RETURNING id),
              c AS (UPDATE oauth_codes SET grant_id = g.id FROM g WHERE code_hash = $4),
              t AS (INSERT INTO oauth_tokens (token_hash, grant_id, kind, expires_at)
                    SELECT $5, g.id, 'access', now() + make_interval(secs => $6) FROM g
                    UNION ALL SELECT $7, g.id, 'refresh', now() + make_interval(secs => $8) FROM g)
         SELECT id FROM g`,
        [
          code.userId,
          code.clientPk,
          code.scopes,
          codeHash,
          tokens.accessHash,
          tokens.accessTtlSeconds,
          tokens.refreshHash,
          tokens.refreshTtlSeconds,
        ],
      );
      return rows[0]?.id ?? null;
    } catch (error) {
      // The consent was deleted between the check and the insert: a foreign-key violation.
      if ((error as { code?: string }).code === '23503') return null;
      throw error;
    }
  }

  /**
   * Rotates a refresh token in one statement: marks it used and issues a new pair in its grant, only if it is
   * live, of this client, of a live grant and active client, and `requested` (when given) is within the grant's
   * scopes. The row lock makes racing rotations of one token serialise: the later ones see it used.
   *
   * A used token presented again within `graceSeconds` of its use, while the token it was rotated into has not
   * been used yet (it is the immediately previous one), is a client retrying after a lost answer: it gets a new
   * pair too, beside the first (`retried`). Rotating a token revokes its unused siblings (the other tokens
   * rotated from the same parent), so the chain does not stay forked. Any other use of a used token is `reused`.
   */
  async rotateRefresh(
    refreshHash: string,
    clientPk: number,
    requested: OAuthScope[] | null,
    tokens: IssuedTokenHashes,
    graceSeconds: number,
  ): Promise<RefreshOutcome> {
    const rows: Record<string, unknown>[] = await this.dataSource.query(
      `WITH cur AS (
         SELECT t.grant_id, t.parent_hash, t.used_at IS NOT NULL AS used, t.revoked_at IS NOT NULL OR t.expires_at <= now() AS dead,
                COALESCE(t.used_at > now() - make_interval(secs => $8), false) AS in_grace,
                EXISTS (SELECT 1 FROM oauth_tokens n WHERE n.parent_hash = $1 AND n.kind = 'refresh' AND n.used_at IS NOT NULL) AS superseded,
                g.client_pk, g.user_id, g.scopes, g.revoked_at IS NOT NULL AS grant_dead, c.is_active,
                EXISTS (SELECT 1 FROM users u WHERE u.id = g.user_id AND u.disabled_at IS NOT NULL) AS user_disabled
           FROM oauth_tokens t JOIN oauth_grants g ON g.id = t.grant_id JOIN oauth_clients c ON c.id = g.client_pk
          WHERE t.token_hash = $1 AND t.kind = 'refresh'
          FOR UPDATE OF t),
       ok AS (SELECT * FROM cur WHERE client_pk = $2 AND NOT grant_dead AND is_active AND NOT user_disabled
                AND scopes @> COALESCE($3::text[], '{}')),
       rot AS (
         UPDATE oauth_tokens SET used_at = now()
          WHERE token_hash = $1 AND used_at IS NULL AND revoked_at IS NULL AND expires_at > now()
            AND EXISTS (SELECT 1 FROM ok)
          RETURNING grant_id),
       retry AS (SELECT grant_id FROM ok WHERE used AND in_grace AND NOT superseded AND NOT dead),
       src AS (SELECT grant_id FROM rot UNION ALL SELECT grant_id FROM retry),
       sib AS (
         UPDATE oauth_tokens SET revoked_at = now()
          WHERE parent_hash = (SELECT parent_hash FROM cur) AND token_hash <> $1 AND kind = 'refresh'
            AND used_at IS NULL AND revoked_at IS NULL AND EXISTS (SELECT 1 FROM rot)),
       pair AS (
         INSERT INTO oauth_tokens (token_hash, grant_id, kind, expires_at, scopes, parent_hash)
         SELECT $4, grant_id, 'access', now() + make_interval(secs => $5), $3::text[], NULL FROM src
         UNION ALL SELECT $6, grant_id, 'refresh', now() + make_interval(secs => $7), NULL, $1 FROM src)
       SELECT cur.*, (SELECT count(*) FROM rot) AS rotated, (SELECT count(*) FROM retry) AS retried FROM cur`,
      [
        refreshHash,
        clientPk,
        requested,
        tokens.accessHash,
        tokens.accessTtlSeconds,
        tokens.refreshHash,
        tokens.refreshTtlSeconds,
        graceSeconds,
      ],
    );
    const row = rows[0];
    // A disabled account's refresh is refused without ending the grant: enabled again, its apps go on.
    if (!row || Number(row.client_pk) !== clientPk || row.grant_dead || !row.is_active || row.user_disabled)
      return { status: 'invalid' };
    const grantId = String(row.grant_id);
    const retried = Number(row.retried) > 0;
    if (Number(row.rotated) > 0 || retried)
      return {
        status: 'rotated',
        grantId,
        clientPk,
        userId: String(row.user_id),
        scopes: requested ?? parseArray(row.scopes),
        retried,
      };
    const retryable = row.in_grace && !row.superseded && !row.dead;
    if (row.used && !retryable) return { status: 'reused', grantId, clientPk };
    if (row.dead) return { status: 'invalid' };
    return { status: 'scope_exceeded', granted: parseArray(row.scopes) };
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
      `SELECT t.grant_id, t.expires_at, t.created_at, g.user_id, g.client_pk, COALESCE(t.scopes, g.scopes) AS scopes, c.client_id, c.client_name, c.rate_limit_rpm,
              LEAST(c.markup_percent, COALESCE(k.markup_percent, 0)) AS markup_percent
         FROM oauth_tokens t JOIN oauth_grants g ON g.id = t.grant_id JOIN oauth_clients c ON c.id = g.client_pk
         LEFT JOIN oauth_consents k ON k.user_id = g.user_id AND k.client_pk = g.client_pk
        WHERE t.token_hash = $1 AND t.kind = '${kind}' AND t.revoked_at IS NULL AND t.used_at IS NULL AND t.expires_at > now()
          AND g.revoked_at IS NULL AND c.is_active
          AND NOT EXISTS (SELECT 1 FROM users u WHERE u.id = g.user_id AND u.disabled_at IS NOT NULL)`,
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
      rateLimitRpm: (row.rate_limit_rpm as number | null) ?? null,
      markupPercent: Number(row.markup_percent ?? 0),
    };
  }

  /** Removes codes and tokens that can never work again (expired a day ago). */
  async purgeExpired(): Promise<void> {
    await this.dataSource.query(`DELETE FROM oauth_codes WHERE expires_at < now() - interval '1 day'`);
    await this.dataSource.query(`DELETE FROM oauth_tokens WHERE expires_at < now() - interval '1 day'`);
  }
}

/** Arrays come back parsed from the pg driver, except through paths that return the text form. */
function parseArray(value: unknown): OAuthScope[] {
  if (Array.isArray(value)) return value as OAuthScope[];
  return String(value ?? '')
    .replace(/^\{|\}$/g, '')
    .split(',')
    .filter(Boolean) as OAuthScope[];
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
    nonce: (row.nonce as string | null) ?? null,
  };
}
