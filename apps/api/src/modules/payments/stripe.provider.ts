import type { Provider } from '@nestjs/common';
import Stripe from 'stripe';
import { APP_CONFIG } from '../../config/config.module';
import type { AppConfig } from '../../config/config.schema';

/** The official Stripe SDK, or null when STRIPE_SECRET_KEY is unset (the sandbox checkout). */
export const STRIPE_CLIENT = Symbol('STRIPE_CLIENT');

export function createStripeClient(config: Pick<AppConfig, 'stripeSecretKey' | 'stripeApiBase'>): Stripe | null {
  if (!config.stripeSecretKey) return null;
  // STRIPE_API_BASE points the SDK at another server (the tests' local fake); the SDK takes host, port and
  // protocol, not a base URL, so a path in it is ignored.
  const base = config.stripeApiBase ? new URL(config.stripeApiBase) : null;
  return new Stripe(config.stripeSecretKey, {
    maxNetworkRetries: 2,
    timeout: 20_000,
    telemetry: false,
    ...(base
      ? {
          host: base.hostname,
          port: base.port || (base.protocol === 'https:' ? 443 : 80),
          protocol: base.protocol === 'https:' ? ('https' as const) : ('http' as const),
        }
      : {}),
  });
}

export const stripeClientProvider: Provider = {
  provide: STRIPE_CLIENT,
  inject: [APP_CONFIG],
  useFactory: (config: AppConfig) => createStripeClient(config),
};
