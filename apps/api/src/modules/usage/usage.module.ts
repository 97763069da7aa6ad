import { OperatorMoneyRepository } from './ledger/operator-money.repository';
import { OperatorMoneyService } from './ledger/operator-money.service';
import { SponsorRepository } from './ledger/sponsor.repository';
import { SponsorService } from './ledger/sponsor.service';
import { EarningsRepository } from './ledger/earnings.repository';
import { EarningsService } from './ledger/earnings.service';
import { PayoutsRepository } from './ledger/payouts.repository';
import { Module } from '@nestjs/common';
import { LedgerRepository } from './ledger/ledger.repository';
import { LedgerService } from './ledger/ledger.service';
import { Leases } from './ledger/leases';
import { ReservationService } from './ledger/reservation.service';
import { ReservationSweeper } from './ledger/reservation-sweeper';
import { ReservationsRepository } from './ledger/reservations.repository';
import { ReconciliationService } from './ledger/reconciliation';
import { ReconciliationRepository } from './ledger/reconciliation.repository';
import { SettlementQueue } from './ledger/settlement-queue';
import { SpendReadService } from './ledger/spend-read.service';
import { UsagePartitions } from './usage-partitions';
import { UsageRecorder } from './usage-recorder';
import { UsageController } from './usage.controller';
import { UsageRepository } from './usage.repository';
import { UsageService } from './usage.service';

/**
 * Usage and money: usage records of gateway calls (UsageRecorder), and the budget ledger with reservations
 * (LedgerService: credits and reads; ReservationService: what calls hold and are charged, over its parts Leases,
 * SettlementQueue and ReservationSweeper; SpendReadService: what keys and apps spent), the reads of usage
 * (UsageService) and the money tables' reconciliation (ReconciliationService). Other modules go through these services.
 */
@Module({
  controllers: [UsageController],
  providers: [
    UsageRecorder,
    UsagePartitions,
    LedgerRepository,
    ReservationsRepository,
    UsageRepository,
    ReconciliationRepository,
    LedgerService,
    Leases,
    SettlementQueue,
    ReservationSweeper,
    ReservationService,
    SpendReadService,
    SponsorRepository,
    SponsorService,
    OperatorMoneyRepository,
    OperatorMoneyService,
    UsageService,
    ReconciliationService,
    EarningsRepository,
    PayoutsRepository,
    EarningsService,
  ],
  exports: [
    UsageRecorder,
    LedgerService,
    ReservationService,
    SpendReadService,
    UsageService,
    ReconciliationService,
    EarningsService,
    SponsorService,
    OperatorMoneyService,
  ],
})
export class UsageModule {}
