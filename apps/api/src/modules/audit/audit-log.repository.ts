import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { AuditAction } from '@switchyard/shared-dto';
import { DataSource, EntityManager } from 'typeorm';

/** One admin action to append. `adminId` null means the command line (actor 'cli'). */
export interface AuditRecord {
  adminId: string | null;
  action: AuditAction;
  targetUserId: string | null;
  details: Record<string, unknown>;
}

export interface AuditRow {
  id: string;
  createdAt: Date;
  actor: 'admin' | 'cli';
  adminId: string | null;
  adminEmail: string | null;
  action: AuditAction;
  targetUserId: string | null;
  targetEmail: string | null;
  details: Record<string, unknown>;
}

/**
 * The only code writing admin_audit_log, which a trigger keeps append-only (migration 1763800033200). Appends take
 * the caller's transaction manager, so an action and its entry commit together or not at all.
 */
@Injectable()
export class AuditLogRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async append(manager: EntityManager, record: AuditRecord): Promise<string> {
    const rows: Array<{ id: string }> = await manager.query(
      `INSERT INTO admin_audit_log (admin_id, actor, action, target_user_id, details)
       VALUES ($1, $2, $3, $4, $5::jsonb) RETURNING id`,
      [
        record.adminId,
        record.adminId ? 'admin' : 'cli',
        record.action,
        record.targetUserId,
        JSON.stringify(record.details),
      ],
    );
    return String(rows[0].id);
  }

  /** Newest first, below the entry id `beforeId`; with the admins' and the accounts' emails (users is accounts'). */
  async list(limit: number, beforeId: string | null, targetUserId: string | null): Promise<AuditRow[]> {
    const rows: Record<string, unknown>[] = await this.dataSource.query(
      `SELECT a.id, a.created_at, a.actor, a.admin_id, au.email AS admin_email, a.action, a.target_user_id,
              tu.email AS target_email, a.details
         FROM admin_audit_log a
         LEFT JOIN users au ON au.id = a.admin_id
         LEFT JOIN users tu ON tu.id = a.target_user_id
        WHERE ($2::bigint IS NULL OR a.id < $2::bigint) AND ($3::uuid IS NULL OR a.target_user_id = $3)
        ORDER BY a.id DESC LIMIT $1`,
      [limit, beforeId, targetUserId],
    );
    return rows.map((row) => ({
      id: String(row.id),
      createdAt: row.created_at as Date,
      actor: row.actor as 'admin' | 'cli',
      adminId: (row.admin_id as string | null) ?? null,
      adminEmail: (row.admin_email as string | null) ?? null,
      action: row.action as AuditAction,
      targetUserId: (row.target_user_id as string | null) ?? null,
      targetEmail: (row.target_email as string | null) ?? null,
      details: (typeof row.details === 'string' ? JSON.parse(row.details) : row.details) as Record<string, unknown>,
    }));
  }
}
