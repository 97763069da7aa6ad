import { DynamicModule, Module } from '@nestjs/common';
import { LifecycleModule } from './common/lifecycle/lifecycle';
import { MetricsModule } from './common/metrics/metrics';
import { RateLimitModule } from './common/rate-limit/rate-limiter.service';
import { RedisModule } from './common/redis/redis.module';
import { ConfigModule } from './config/config.module';
import type { AppConfig } from './config/config.schema';
import type { Database } from './database/database';
import { DatabaseModule } from './database/database.module';
import { AccountsModule } from './modules/accounts/accounts.module';
import { ClientsModule } from './modules/clients/clients.module';
import { ConsentsModule } from './modules/consents/consents.module';
import { GiftcardsModule } from './modules/giftcards/giftcards.module';
import { HealthModule } from './modules/health/health.module';
import { KeysModule } from './modules/keys/keys.module';
import { OAuthModule } from './modules/oauth/oauth.module';
import { PaymentsModule } from './modules/payments/payments.module';
import { ProxyModule } from './modules/proxy/proxy.module';
import { SpacesModule } from './modules/spaces/spaces.module';
import { UsageModule } from './modules/usage/usage.module';

@Module({})
export class AppModule {
  static forRoot(config: AppConfig, database: Database): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ConfigModule.forRoot(config),
        DatabaseModule.forRoot(database),
        RedisModule,
        LifecycleModule,
        MetricsModule,
        RateLimitModule,
        AccountsModule,
        HealthModule,
        KeysModule,
        UsageModule,
        ProxyModule,
        ConsentsModule,
        ClientsModule,
        OAuthModule,
        PaymentsModule,
        GiftcardsModule,
        SpacesModule,
      ],
    };
  }
}
