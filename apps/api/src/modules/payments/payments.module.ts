import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AccountsModule } from '../accounts';
import { AuditModule } from '../audit';
import { UsageModule } from '../usage';
import { paymentsEntities } from './entities';
import { PaymentsController } from './payments.controller';
import { PaymentsRepository } from './payments.repository';
import { PaymentsService } from './payments.service';
import { RefundsController } from './refunds.controller';
import { RefundsRepository } from './refunds.repository';
import { RefundsService } from './refunds.service';
import { stripeClientProvider } from './stripe.provider';

/** Card top-ups through Stripe Checkout (or the labelled sandbox when no Stripe key is configured). */
@Module({
  imports: [TypeOrmModule.forFeature(paymentsEntities), UsageModule, AccountsModule, AuditModule],
  controllers: [PaymentsController, RefundsController],
  providers: [PaymentsRepository, PaymentsService, RefundsRepository, RefundsService, stripeClientProvider],
  exports: [PaymentsService, RefundsService],
})
export class PaymentsModule {}
