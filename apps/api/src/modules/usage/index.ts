/**
 * The usage module's face: what other modules may use of it. Everything else in this folder (repositories,
 * entities, SQL) is its own (eslint: switchyard/module-faces).
 */
export { UsageModule } from './usage.module';
export { LedgerService, toUnits, type CreditEvent } from './ledger/ledger.service';
export type { CreditKind } from './ledger/ledger.repository';
export { ReservationService, type Reservation, type ReservationRequest } from './ledger/reservation.service';
export { SpendReadService } from './ledger/spend-read.service';
export { refusedLimitOfError } from './ledger/spend-limit-refusal';
export { ReconciliationService, type Drift, type ReconcileReport } from './ledger/reconciliation';
export { UsageRecorder, type UsageRecordInput } from './usage-recorder';
export { UsageService } from './usage.service';
export type { UsageStatus } from './entities/usage-record.entity';
export { usageEntities } from './entities';
export { markedUp, markupSplit, providerPart, MAX_MARKUP_PERCENT } from './ledger/markup';
export { EarningsService, EARNINGS_DAYS, type PayoutRow } from './ledger/earnings.service';
export { CENT_MICROS } from './ledger/payouts.repository';
export { SponsorService } from './ledger/sponsor.service';
export { OperatorMoneyService } from './ledger/operator-money.service';
