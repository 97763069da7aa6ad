import { Controller, Get, Res } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import type { HealthResponse, ReadinessResponse } from '@switchyard/shared-dto';
import { Access } from '../../common/auth/access.decorator';
import { Lifecycle } from '../../common/lifecycle/lifecycle';
import { RedisConnection } from '../../common/redis/redis-connection';
import { Database } from '../../database/database';
import { APP_VERSION } from '../../version';

@ApiTags('health')
@Controller()
export class HealthController {
  constructor(
    private readonly database: Database,
    private readonly redis: RedisConnection,
    private readonly lifecycle: Lifecycle,
  ) {}

  @Get('healthz')
  @Access({ public: true })
  @ApiOperation({ summary: 'Liveness: the process answers' })
  health(): HealthResponse {
    return { status: 'ok', version: APP_VERSION };
  }

  @Get('readyz')
  @Access({ public: true })
  @ApiOperation({
    summary:
      'Readiness: the database (and Redis, when configured) answer and the instance is not shutting down; 503 otherwise',
  })
  async ready(
    @Res({ passthrough: true }) res: Response,
  ): Promise<ReadinessResponse & { redis?: 'ok' | 'unavailable' }> {
    const [database, redis] = await Promise.all([this.database.ping(), this.redis.ping()]);
    const draining = this.lifecycle.draining;
    const ok = database && redis && !draining;
    res.status(ok ? 200 : 503);
    return {
      status: draining ? 'shutting_down' : ok ? 'ok' : 'unavailable',
      database: database ? 'ok' : 'unavailable',
      databaseKind: this.database.kind,
      ...(this.redis.client ? { redis: redis ? 'ok' : 'unavailable' } : {}),
    };
  }
}
