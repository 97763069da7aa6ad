/**
 * The payments module's face (eslint: switchyard/module-faces). The webhook's path is public too: the app keeps
 * that route's raw body for Stripe's signature check (app.ts).
 */
export { PaymentsModule } from './payments.module';
export { PaymentsService } from './payments.service';
export { RefundsService } from './refunds.service';
export { createStripeClient } from './stripe.provider';
export { PAYMENT_WEBHOOK_PATH } from './payments.controller';
export { paymentsEntities } from './entities';
