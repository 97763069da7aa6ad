import { DynamicModule, Module } from '@nestjs/common';
import { LifecycleModule } from './common/lifecycle/lifecycle';
import { MetricsModule } from './common/metrics/metrics';
import { RateLimitModule } from './common/rate-limit/rate-limiter.service';
import { RedisModule } from './common/redis/redis.module';
import { ConfigModule } from './config/config.module';
import type { AppConfig } from './config/config.schema';
import type { Database } from './database/database';
import { DatabaseModule } from './database/database.module';
import { AccountsModule } from './modules/accounts';
import { AdminModule } from './modules/admin';
import { ClientsModule } from './modules/clients';
import { EarningsModule } from './modules/earnings';
import { ConsentsModule } from './modules/consents';
import { GiftcardsModule } from './modules/giftcards';
import { HealthModule } from './modules/health';
import { KeysModule } from './modules/keys';
import { NotificationsModule } from './modules/notifications';
import { OAuthModule } from './modules/oauth';
import { PaymentsModule } from './modules/payments';
import { ProxyModule } from './modules/proxy';
import { SpacesModule } from './modules/spaces';
import { UsageModule } from './modules/usage';

@Module({})
export class AppModule {
  static forRoot(config: AppConfig, database: Database, passwordHashCost: number | null = null): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ConfigModule.forRoot(config, passwordHashCost),
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
        EarningsModule,
        OAuthModule,
        PaymentsModule,
        GiftcardsModule,
        SpacesModule,
        AdminModule,
        NotificationsModule,
      ],
    };
  }
}
