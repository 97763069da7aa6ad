import { INestApplication, Logger, LogLevel as NestLogLevel } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { Request, Response } from 'express';
import cookieParser from 'cookie-parser';
import type { AddressInfo } from 'node:net';
import { AppModule } from './app.module';
import type { AppConfig, LogLevel } from './config/config.schema';
import { AppLogger } from './common/logging/app-logger';
import { AllExceptionsFilter } from './common/errors/all-exceptions.filter';
import { bodyParsers } from './common/http/body-parsers';
import { dashboardStatic } from './common/http/dashboard-static';
import { buildOpenApiDocument } from './common/http/openapi';
import { oauthCors } from './common/http/open-cors';
import { answerMalformedRequests, refuseBadUrls } from './common/http/input-hygiene';
import { requestContext } from './common/http/request-context';
import { securityHeaders } from './common/http/security-headers';
import { createValidationPipe } from './common/http/validation';
import { Database } from './database/database';
import { PAYMENT_WEBHOOK_PATH } from './modules/payments/payments.controller';
import { addGatewayPaths } from './modules/proxy/gateway-openapi';
import { GatewayService } from './modules/proxy/gateway.service';
import { installFrontDoor } from './modules/proxy/front-door';

export interface RunningApp {
  app: INestApplication;
  database: Database;
  /** The address it listens on, e.g. http://127.0.0.1:43121. */
  url: string;
  close(): Promise<void>;
}

const LEVELS: NestLogLevel[] = ['fatal', 'error', 'warn', 'log', 'debug', 'verbose'];

export function logLevels(level: LogLevel): NestLogLevel[] {
  return LEVELS.slice(0, LEVELS.indexOf(level) + 1);
}

export interface CreateAppOptions {
  /** Serve the built dashboard (default true). */
  dashboard?: boolean;
  /** Levels to print (default: LOG_LEVEL's), or false for none. */
  logger?: NestLogLevel[] | false;
  /** Where log lines go (tests capture them); default stdout and stderr. */
  logWrite?: (line: string, level: NestLogLevel) => void;
}

/** The app's logger (LOG_FORMAT, LOG_LEVEL, secrets masked), for Nest and for anything logging before Nest runs. */
export function createLogger(config: AppConfig, levels: NestLogLevel[] = logLevels(config.logLevel), write?: CreateAppOptions['logWrite']): AppLogger {
  return new AppLogger({ format: config.logFormat, levels, apiKeyPrefix: config.apiKeyPrefix, write });
}

/** Opens the database (migrating it), builds the Nest app with every middleware, and listens. */
export async function createApp(config: AppConfig, options: CreateAppOptions = {}): Promise<RunningApp> {
  const logger = options.logger === false ? false : createLogger(config, options.logger, options.logWrite);
  // Lines written while the database opens and migrates go through it too, not through Nest's default logger.
  if (logger) Logger.overrideLogger(logger);
  const database = await Database.open(config);
  let app: NestExpressApplication | undefined;
  try {
    app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot(config, database), {
      bodyParser: false,
      logger,
    });
    app.set('trust proxy', config.trustProxy);
    app.disable('x-powered-by');
    app.set('etag', false);
    // A line per request at LOG_LEVEL log and below; nothing (not even the listener) above it.
    const logRequests = logLevels(config.logLevel).includes('log');
    app.use(requestContext(undefined, logRequests), securityHeaders, refuseBadUrls, oauthCors, cookieParser(), ...bodyParsers([PAYMENT_WEBHOOK_PATH]));
    // Without a built dashboard there is nothing to serve (and Express refuses an empty app.use()).
    const dashboard = options.dashboard === false ? [] : dashboardStatic();
    if (dashboard.length) app.use(...dashboard);
    app.useGlobalFilters(new AllExceptionsFilter());
    app.useGlobalPipes(createValidationPipe());

    const document = buildOpenApiDocument(app, config.publicUrl);
    addGatewayPaths(document);
    app.getHttpAdapter().getInstance().get('/openapi.json', (_req: Request, res: Response) => res.json(document));

    // Gateway calls skip Express altogether (modules/proxy/front-door.ts): the gateway reads its own bodies (raw
    // JSON kept for pass-through, multipart streamed to disk) and needs none of the router's machinery.
    installFrontDoor(app.getHttpServer(), app.get(GatewayService), logRequests);
    answerMalformedRequests(app.getHttpServer());
    await app.listen(config.port, config.host);
    const address = app.getHttpServer().address() as AddressInfo;
    const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
    const running = app;
    return {
      app: running,
      database,
      url: `http://${host}:${address.port}`,
      close: async () => {
        await running.close();
        await database.close();
      },
    };
  } catch (error) {
    await app?.close().catch(() => undefined);
    await database.close();
    throw error;
  }
}
