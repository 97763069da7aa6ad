import { Module } from '@nestjs/common';
import { LedgerRepository } from './ledger/ledger.repository';
import { LedgerService } from './ledger/ledger.service';
import { ReservationService } from './ledger/reservation.service';
import { ReservationsRepository } from './ledger/reservations.repository';
import { ReconciliationService } from './ledger/reconciliation';
import { UsagePartitions } from './usage-partitions';
import { UsageRecorder } from './usage-recorder';
import { UsageController } from './usage.controller';
import { UsageRepository } from './usage.repository';
import { UsageService } from './usage.service';

/**
 * Usage and money: usage records of gateway calls (UsageRecorder), and the budget ledger with reservations
 * (LedgerService: credits and reads; ReservationService: what calls hold and are charged), the reads of usage (UsageService) and the money tables' reconciliation (ReconciliationService). Other modules go through these services.
 */
@Module({
  controllers: [UsageController],
  providers: [
    UsageRecorder,
    UsagePartitions,
    LedgerRepository,
    ReservationsRepository,
    UsageRepository,
    LedgerService,
    ReservationService,
    UsageService,
    ReconciliationService,
  ],
  exports: [UsageRecorder, LedgerService, ReservationService, UsageService, ReconciliationService],
})
export class UsageModule {}
