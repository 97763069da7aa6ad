/** The audit module's face: the append-only log of admin actions (docs/operations.md, "The audit log"). */
export { AuditModule } from './audit.module';
export { AuditLogService } from './audit-log.service';
export type { AuditRecord } from './audit-log.repository';
