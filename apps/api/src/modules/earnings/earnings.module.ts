import { Module } from '@nestjs/common';
import { UsageModule } from '../usage';
import { EarningsController } from './earnings.controller';
import { PayoutsService } from './payouts.service';

/** An app maker's earnings over HTTP (docs/earnings.md); the money itself is the usage module's ledger. */
@Module({
  imports: [UsageModule],
  controllers: [EarningsController],
  providers: [PayoutsService],
})
export class EarningsModule {}
