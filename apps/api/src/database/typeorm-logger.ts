import { Logger as NestLogger } from '@nestjs/common';
import type { Logger as TypeOrmLoggerInterface } from 'typeorm';

/**
 * TypeORM's own loggers print query parameters, which carry password hashes and token hashes. This one logs
 * failures with the SQL text and the error only, never parameters; an expected constraint violation (a taken
 * email) is the caller's business and logged at debug level.
 */
export class SafeTypeOrmLogger implements TypeOrmLoggerInterface {
  private readonly logger = new NestLogger('TypeORM');

  logQuery(): void {}

  logQueryError(error: string | Error, query: string): void {
    const code = (error as Error & { code?: string }).code;
    const message = `${typeof error === 'string' ? error : error.message} in: ${query.slice(0, 200)}`;
    if (code === '23505') this.logger.debug(message);
    else this.logger.error(message);
  }

  logQuerySlow(time: number, query: string): void {
    this.logger.warn(`slow query (${time} ms): ${query.slice(0, 200)}`);
  }

  logSchemaBuild(): void {}

  logMigration(message: string): void {
    this.logger.log(message);
  }

  log(level: 'log' | 'info' | 'warn', message: unknown): void {
    if (level === 'warn') this.logger.warn(String(message));
  }
}
