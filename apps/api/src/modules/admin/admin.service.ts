import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { AdminUsageResponse, AdminUser, AdminUserPage, BalanceAdjustmentResponse } from '@switchyard/shared-dto';
import type {
  AccountStatusChangeDto,
  AdminUsageQueryDto,
  AdminUserQueryDto,
  BalanceAdjustmentDto,
} from '@switchyard/shared-dto/validation';
import { normaliseEmail } from '@switchyard/shared-dto';
import { DataSource } from 'typeorm';
import { AccountsService } from '../accounts';
import { AuditLogService } from '../audit';
import { LedgerService, toUnits } from '../usage';
import { AdminErrorCode, AdminException } from './admin.exception';
import { AdminRepository, type AdminUserRow } from './admin.repository';

const DAY_MS = 86_400_000;
const DEFAULT_PAGE = 25;

function toAdminUser(row: AdminUserRow): AdminUser {
  return {
    id: row.id,
    email: row.email,
    name: row.name,
    handle: row.handle,
    role: row.role,
    status: row.deletedAt ? 'deleted' : row.disabledAt ? 'disabled' : 'active',
    emailVerified: row.emailVerifiedAt !== null,
    createdAt: row.createdAt.toISOString(),
    disabledAt: row.disabledAt?.toISOString() ?? null,
    balance: toUnits(row.credits - row.debits),
    reserved: toUnits(row.reserved),
    credits: toUnits(row.credits),
    debits: toUnits(row.debits),
    spentThisMonth: toUnits(row.spentThisMonth),
    lastCallAt: row.lastCallAt?.toISOString() ?? null,
  };
}

function encodeCursor(row: AdminUserRow): string {
  return Buffer.from(`${row.cursorAt}|${row.id}`).toString('base64url');
}

/** A time as PostgreSQL writes timestamptz as text (to the microsecond, with its offset). */
const CURSOR_TIME = /^\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(\.\d{1,6})?([+-]\d\d(:?\d\d)?|Z)$/;

function decodeCursor(cursor: string | undefined): { createdAt: string; id: string } | null {
  if (!cursor) return null;
  const [createdAt, id] = Buffer.from(cursor, 'base64url').toString('utf8').split('|');
  if (!id || !CURSOR_TIME.test(createdAt) || !/^[0-9a-f-]{36}$/.test(id))
    throw new AdminException(AdminErrorCode.INVALID_CURSOR, 'cursor is not one this list gave', 'cursor');
  return { createdAt, id };
}

/** A bare date as `to` means through that whole UTC day. */
function dayAfter(value: string): string {
  const date = new Date(value);
  if (/^\d{4}-\d{2}-\d{2}$/.test(value)) date.setUTCDate(date.getUTCDate() + 1);
  return date.toISOString().slice(0, 10);
}

/**
 * The operator's console (docs/operations.md, "The operator's console"): accounts with their money, balance
 * adjustments through the ledger, disabling and enabling accounts, usage across accounts. Every action is written
 * to the append-only audit log in the same transaction as the action itself.
 */
@Injectable()
export class AdminService {
  constructor(
    private readonly repository: AdminRepository,
    private readonly accounts: AccountsService,
    private readonly ledger: LedgerService,
    private readonly audit: AuditLogService,
    @InjectDataSource() private readonly dataSource: DataSource,
  ) {}

  async users(query: AdminUserQueryDto): Promise<AdminUserPage> {
    const limit = query.limit ?? DEFAULT_PAGE;
    // What an admin types to find an address is normalised as addresses are (docs/accounts.md, "Emails").
    const q = query.q ? normaliseEmail(query.q) : null;
    const rows = await this.repository.users(q || null, query.status ?? null, limit + 1, decodeCursor(query.cursor));
    const page = rows.slice(0, limit);
    return {
      items: page.map(toAdminUser),
      nextCursor: rows.length > limit && page.length ? encodeCursor(page[page.length - 1]) : null,
    };
  }

  async user(id: string): Promise<AdminUser> {
    const [row] = await this.repository.users(null, null, 1, null, id);
    if (!row) throw new AdminException(AdminErrorCode.USER_NOT_FOUND, 'No account has this id');
    return toAdminUser(row);
  }

  /**
   * Credits (positive) or debits (negative) the account through the ledger, once per idempotency key, with the
   * reason and the admin's id in the ledger entry's source and in the audit log, in one transaction.
   */
  async adjust(adminId: string, userId: string, dto: BalanceAdjustmentDto): Promise<BalanceAdjustmentResponse> {
    const user = await this.user(userId);
    if (user.status === 'deleted')
      throw new AdminException(AdminErrorCode.ACCOUNT_DELETED, 'This account was deleted: its balance is closed');
    const micros = Math.round(dto.amount * 1e6);
    const written = await this.dataSource.transaction(async (manager) => {
      const entry = await this.ledger.adjust(manager, userId, micros, `admin:${adminId}`, dto.idempotencyKey);
      if (entry.applied)
        await this.audit.append(manager, {
          adminId,
          action: 'balance_adjusted',
          targetUserId: userId,
          details: { amount: toUnits(micros), reason: dto.reason, ledgerEntryId: entry.entryId },
        });
      return entry;
    });
    // A credit's receipt, once the adjustment has committed (docs/mail.md).
    if (written.applied && micros > 0)
      this.ledger.announceCredit({
        userId,
        amountMicros: micros,
        kind: 'admin_adjustment',
        source: `admin:${adminId}`,
      });
    return {
      ledgerEntryId: written.entryId,
      amount: toUnits(micros),
      applied: written.applied,
      user: await this.user(userId),
    };
  }

  /**
   * Disables the account (its sessions end in the same statement; sign-in, its keys and its apps' tokens are refused
   * from the next request, on every instance) or enables it again, with the reason in the audit log.
   */
  async setDisabled(
    adminId: string,
    userId: string,
    disabled: boolean,
    dto: AccountStatusChangeDto,
  ): Promise<AdminUser> {
    if (disabled && adminId === userId)
      throw new AdminException(AdminErrorCode.CANNOT_DISABLE_SELF, 'You cannot disable your own account');
    const user = await this.user(userId);
    if (user.status === 'deleted')
      throw new AdminException(AdminErrorCode.ACCOUNT_DELETED, 'This account was deleted: there is nothing to change');
    const changed = await this.dataSource.transaction(async (manager) => {
      const done = await this.accounts.setDisabled(manager, userId, disabled);
      if (done)
        await this.audit.append(manager, {
          adminId,
          action: disabled ? 'account_disabled' : 'account_enabled',
          targetUserId: userId,
          details: { reason: dto.reason },
        });
      return done;
    });
    // After the commit, so no instance can cache the old state again from a read made before it.
    if (changed) await this.accounts.forgetCredentials(userId);
    return this.user(userId);
  }

  async usage(query: AdminUsageQueryDto): Promise<AdminUsageResponse> {
    const to = query.to ? dayAfter(query.to) : new Date(Date.now() + DAY_MS).toISOString().slice(0, 10);
    const from = query.from
      ? new Date(query.from).toISOString().slice(0, 10)
      : new Date(Date.parse(to) - 30 * DAY_MS).toISOString().slice(0, 10);
    if (from >= to) throw new AdminException(AdminErrorCode.INVALID_WINDOW, 'from must be before to', 'from');
    const groupBy = query.groupBy ?? 'day';
    const { rows, totals } = await this.repository.usage(from, to, groupBy);
    const units = <T extends { cost: number }>(row: T) => ({ ...row, cost: toUnits(row.cost) });
    return {
      from,
      to,
      groupBy,
      rows: rows.map(units),
      totals: {
        requests: totals.requests,
        errors: totals.errors,
        totalTokens: totals.totalTokens,
        cost: toUnits(totals.cost),
        users: totals.users,
      },
    };
  }
}
