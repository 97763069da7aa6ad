import { Module } from '@nestjs/common';
import { AccountsModule } from '../accounts';
import { AuditModule } from '../audit';
import { GiftcardsModule } from '../giftcards';
import { UsageModule } from '../usage';
import { AdminController } from './admin.controller';
import { AdminRepository } from './admin.repository';
import { AdminService } from './admin.service';

/** The operator's console: accounts, adjustments, disabling, usage across accounts, gift cards, the audit log. */
@Module({
  imports: [AccountsModule, UsageModule, GiftcardsModule, AuditModule],
  controllers: [AdminController],
  providers: [AdminRepository, AdminService],
})
export class AdminModule {}
