import { Module } from '@nestjs/common';
import { ClientsModule } from '../clients';
import { UsageModule } from '../usage';
import { EarningsController } from './earnings.controller';
import { PayoutsService } from './payouts.service';
import { SponsorController } from './sponsor.controller';

/**
 * An app maker's earnings and sponsor pools over HTTP (docs/earnings.md); the money itself is the usage module's
 * ledger.
 */
@Module({
  imports: [UsageModule, ClientsModule],
  controllers: [EarningsController, SponsorController],
  providers: [PayoutsService],
})
export class EarningsModule {}
