import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { AccountStatus, AdminUsageGroupBy } from '@switchyard/shared-dto';
import { DataSource } from 'typeorm';

export interface AdminUserRow {
  id: string;
  email: string;
  name: string | null;
  handle: string | null;
  role: 'user' | 'admin';
  createdAt: Date;
  /** created_at as the database writes it, to the microsecond (a page cursor; a Date keeps milliseconds only). */
  cursorAt: string;
  disabledAt: Date | null;
  deletedAt: Date | null;
  emailVerifiedAt: Date | null;
  credits: number;
  debits: number;
  reserved: number;
  spentThisMonth: number;
  lastCallAt: Date | null;
}

export interface UsageGroupRow {
  day: string | null;
  model: string | null;
  userId: string | null;
  email: string | null;
  requests: number;
  errors: number;
  totalTokens: number;
  cost: number;
  users: number;
}

const n = (value: unknown) => Number(value ?? 0);

/** LIKE's wildcards in what an admin typed, taken literally. */
const likeLiteral = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

const STATUS_SQL: Record<AccountStatus, string> = {
  active: 'u.deleted_at IS NULL AND u.disabled_at IS NULL',
  disabled: 'u.deleted_at IS NULL AND u.disabled_at IS NOT NULL',
  deleted: 'u.deleted_at IS NOT NULL',
};

const GROUPS: Record<AdminUsageGroupBy, { select: string; group: string; order: string }> = {
  day: {
    select: `to_char(d.day, 'YYYY-MM-DD') AS day, NULL AS model, NULL AS user_id`,
    group: 'd.day',
    order: 'd.day DESC',
  },
  model: { select: 'NULL::text AS day, d.model, NULL::uuid AS user_id', group: 'd.model', order: 'cost DESC, d.model' },
  user: {
    select: 'NULL::text AS day, NULL::text AS model, d.user_id',
    group: 'd.user_id',
    order: 'cost DESC, d.user_id',
  },
  day_model: {
    select: `to_char(d.day, 'YYYY-MM-DD') AS day, d.model, NULL::uuid AS user_id`,
    group: 'd.day, d.model',
    order: 'd.day DESC, cost DESC, d.model',
  },
};

/**
 * The console's reads across every account (docs/operations.md): users with their balance and spend, and usage
 * per day, model or user. They read other modules' tables in one statement each (users: accounts; balances and
 * ledger_entries: usage; usage_daily and usage_records: usage), and never write them (docs/database.md).
 */
@Injectable()
export class AdminRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * Accounts newest first, below the cursor (created_at, id): `q` matches part of the email, name or handle, or a
   * whole account id; `status` keeps one status.
   */
  async users(
    q: string | null,
    status: AccountStatus | null,
    limit: number,
    before: { createdAt: string; id: string } | null,
    only: string | null = null,
  ): Promise<AdminUserRow[]> {
    const params: unknown[] = [limit];
    const bind = (value: unknown) => `$${params.push(value)}`;
    const where: string[] = [];
    if (only) where.push(`u.id = ${bind(only)}::uuid`);
    if (q) {
      const like = bind(`%${likeLiteral(q.toLowerCase())}%`);
      const exact = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(q)
        ? ` OR u.id = ${bind(q)}::uuid`
        : '';
      where.push(`(u.email LIKE ${like} OR lower(u.name) LIKE ${like} OR u.handle LIKE ${like}${exact})`);
    }
    if (status) where.push(STATUS_SQL[status]);
    if (before) where.push(`(u.created_at, u.id) < (${bind(before.createdAt)}::timestamptz, ${bind(before.id)}::uuid)`);
    const rows: Record<string, unknown>[] = await this.dataSource.query(
      `SELECT u.id, u.email, u.name, u.handle, u.role, u.created_at, u.created_at::text AS cursor_at, u.disabled_at, u.deleted_at, u.email_verified_at,
              COALESCE(b.credits_micros, 0) AS credits, COALESCE(b.debits_micros, 0) AS debits,
              COALESCE(b.reserved_micros, 0) AS reserved,
              (SELECT COALESCE(-sum(l.amount_micros), 0) FROM ledger_entries l
                WHERE l.user_id = u.id AND l.kind = 'usage'
                  AND l.created_at >= date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC') AS spent_month,
              (SELECT max(r.started_at) FROM usage_records r WHERE r.user_id = u.id) AS last_call
         FROM users u LEFT JOIN balances b ON b.user_id = u.id
        ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
        ORDER BY u.created_at DESC, u.id DESC LIMIT $1`,
      params,
    );
    return rows.map((row) => ({
      id: String(row.id),
      email: String(row.email),
      name: (row.name as string | null) ?? null,
      handle: (row.handle as string | null) ?? null,
      role: row.role as 'user' | 'admin',
      createdAt: row.created_at as Date,
      cursorAt: String(row.cursor_at),
      disabledAt: (row.disabled_at as Date | null) ?? null,
      deletedAt: (row.deleted_at as Date | null) ?? null,
      emailVerifiedAt: (row.email_verified_at as Date | null) ?? null,
      credits: n(row.credits),
      debits: n(row.debits),
      reserved: n(row.reserved),
      spentThisMonth: n(row.spent_month),
      lastCallAt: (row.last_call as Date | null) ?? null,
    }));
  }

  /** Every account's calls over [from, to) (UTC days), from the daily rollup, grouped; the totals as the last row. */
  async usage(
    from: string,
    to: string,
    groupBy: AdminUsageGroupBy,
  ): Promise<{ rows: UsageGroupRow[]; totals: UsageGroupRow }> {
    const group = GROUPS[groupBy];
    const sums = `sum(d.requests) AS requests, sum(d.errors) AS errors, sum(d.total_tokens) AS tokens,
                  sum(d.cost_micros) AS cost, count(DISTINCT d.user_id) AS users`;
    const window = `d.day >= $1::date AND d.day < $2::date`;
    const rows: Record<string, unknown>[] = await this.dataSource.query(
      `SELECT g.*, u.email FROM (
         SELECT ${group.select}, ${sums} FROM usage_daily d WHERE ${window} GROUP BY ${group.group} ORDER BY ${group.order} LIMIT 1000
       ) g LEFT JOIN users u ON u.id = g.user_id`,
      [from, to],
    );
    const [total]: Record<string, unknown>[] = await this.dataSource.query(
      `SELECT ${sums} FROM usage_daily d WHERE ${window}`,
      [from, to],
    );
    const toRow = (row: Record<string, unknown>): UsageGroupRow => ({
      day: (row.day as string | null) ?? null,
      model: (row.model as string | null) ?? null,
      userId: (row.user_id as string | null) ?? null,
      email: (row.email as string | null) ?? null,
      requests: n(row.requests),
      errors: n(row.errors),
      totalTokens: n(row.tokens),
      cost: n(row.cost),
      users: n(row.users),
    });
    return { rows: rows.map(toRow), totals: toRow(total ?? {}) };
  }
}
