import { Module } from '@nestjs/common';
import { BudgetService } from './ledger/budget.service';
import { LedgerRepository } from './ledger/ledger.repository';
import { ReconciliationService } from './ledger/reconciliation';
import { UsagePartitions } from './usage-partitions';
import { UsageRecorder } from './usage-recorder';
import { UsageController } from './usage.controller';
import { UsageService } from './usage.service';

/**
 * Usage and money: usage records of gateway calls (UsageRecorder), and the budget ledger with reservations
 * (BudgetService), the reads of usage (UsageService) and the money tables' reconciliation (ReconciliationService). Other modules go through these services.
 */
@Module({
  controllers: [UsageController],
  providers: [UsageRecorder, UsagePartitions, LedgerRepository, BudgetService, UsageService, ReconciliationService],
  exports: [UsageRecorder, BudgetService, UsageService, ReconciliationService],
})
export class UsageModule {}
