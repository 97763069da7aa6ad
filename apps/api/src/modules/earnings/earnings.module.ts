import { Module } from '@nestjs/common';
import { UsageModule } from '../usage';
import { EarningsController } from './earnings.controller';

/** An app maker's earnings over HTTP (docs/earnings.md); the money itself is the usage module's ledger. */
@Module({
  imports: [UsageModule],
  controllers: [EarningsController],
})
export class EarningsModule {}
