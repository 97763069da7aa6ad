import { DynamicModule, Global, Module } from '@nestjs/common';
import { AppConfig } from './config.schema';

export const APP_CONFIG = Symbol('APP_CONFIG');
/** log2 of scrypt's N for new password hashes, or null for the default (common/crypto.ts's hashPassword). */
export const PASSWORD_HASH_COST = Symbol('PASSWORD_HASH_COST');

/**
 * Makes the validated configuration injectable everywhere as `@Inject(APP_CONFIG) config: AppConfig`, and the
 * password hashing cost, which only code sets (the tests, through createApp); no environment variable can lower it.
 */
@Global()
@Module({})
export class ConfigModule {
  static forRoot(config: AppConfig, passwordHashCost: number | null = null): DynamicModule {
    return {
      module: ConfigModule,
      providers: [
        { provide: APP_CONFIG, useValue: config },
        { provide: PASSWORD_HASH_COST, useValue: passwordHashCost },
      ],
      exports: [APP_CONFIG, PASSWORD_HASH_COST],
    };
  }
}
