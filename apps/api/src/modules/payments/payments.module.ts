import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AccountsModule } from '../accounts';
import { UsageModule } from '../usage';
import { paymentsEntities } from './entities';
import { PaymentsController } from './payments.controller';
import { PaymentsRepository } from './payments.repository';
import { PaymentsService } from './payments.service';
import { stripeClientProvider } from './stripe.provider';

/** Card top-ups through Stripe Checkout (or the labelled sandbox when no Stripe key is configured). */
@Module({
  imports: [TypeOrmModule.forFeature(paymentsEntities), UsageModule, AccountsModule],
  controllers: [PaymentsController],
  providers: [PaymentsRepository, PaymentsService, stripeClientProvider],
  exports: [PaymentsService],
})
export class PaymentsModule {}
