import { Injectable } from '@nestjs/common';
import type { AuditPage } from '@switchyard/shared-dto';
import type { EntityManager } from 'typeorm';
import { AuditLogRepository, type AuditRecord } from './audit-log.repository';

/**
 * The append-only log of admin actions (docs/operations.md, "The audit log"): who, what, when. Every module that
 * carries out an admin action appends its entry in the action's own transaction (`append(manager, …)`).
 */
@Injectable()
export class AuditLogService {
  constructor(private readonly repository: AuditLogRepository) {}

  /** Appends the entry inside the caller's transaction; answers its id. */
  append(manager: EntityManager, record: AuditRecord): Promise<string> {
    return this.repository.append(manager, record);
  }

  async list(limit: number, cursor: string | null, targetUserId: string | null): Promise<AuditPage> {
    const before = cursor && /^\d{1,19}$/.test(cursor) ? cursor : null;
    const rows = await this.repository.list(limit + 1, before, targetUserId);
    const page = rows.slice(0, limit);
    return {
      items: page.map((row) => ({
        id: row.id,
        at: row.createdAt.toISOString(),
        actor: row.actor,
        admin: row.adminId ? { id: row.adminId, email: row.adminEmail ?? '' } : null,
        action: row.action,
        target: row.targetUserId ? { id: row.targetUserId, email: row.targetEmail ?? '' } : null,
        details: row.details,
      })),
      nextCursor: rows.length > limit ? page[page.length - 1].id : null,
    };
  }
}
