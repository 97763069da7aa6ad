import { Module } from '@nestjs/common';
import { AuditLogRepository } from './audit-log.repository';
import { AuditLogService } from './audit-log.service';

/** The append-only audit log of admin actions; used by the modules that carry them out (admin, giftcards). */
@Module({ providers: [AuditLogRepository, AuditLogService], exports: [AuditLogService] })
export class AuditModule {}
