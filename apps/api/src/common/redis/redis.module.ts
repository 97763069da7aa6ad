import { Global, Module } from '@nestjs/common';
import { InvalidationBus } from './invalidation-bus';
import { RedisConnection } from './redis-connection';

@Global()
@Module({ providers: [RedisConnection, InvalidationBus], exports: [RedisConnection, InvalidationBus] })
export class RedisModule {}
