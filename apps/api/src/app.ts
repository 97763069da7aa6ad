import { INestApplication, Logger, LogLevel as NestLogLevel } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { Request, Response } from 'express';
import cookieParser from 'cookie-parser';
import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AppModule } from './app.module';
import type { AppConfig, LogLevel } from './config/config.schema';
import { AppLogger } from './common/logging/app-logger';
import { AllExceptionsFilter } from './common/errors/all-exceptions.filter';
import { bodyParsers } from './common/http/body-parsers';
import { refuseCrossSiteWrites } from './common/http/same-origin';
import { dashboardStatic } from './common/http/dashboard-static';
import { readSdkScript, sdkScript } from './common/http/sdk-script';
import { buildOpenApiDocument } from './common/http/openapi';
import type { OpenAPIObject } from '@nestjs/swagger';
import { oauthCors } from './common/http/open-cors';
import { answerMalformedRequests, refuseBadUrls } from './common/http/input-hygiene';
import { requestContext } from './common/http/request-context';
import { addStrictTransport, dashboardCsp, securityHeaders } from './common/http/security-headers';
import { createValidationPipe } from './common/http/validation';
import { Database } from './database/database';
import { ENTITIES } from './database/entities';
import { PAYMENT_WEBHOOK_PATH } from './modules/payments';
import { addGatewayPaths, GatewayService, installFrontDoor } from './modules/proxy';
import { addSpacesHostingPaths, SpacesService, spacesHost, spacesRedirect } from './modules/spaces';

export interface RunningApp {
  app: INestApplication;
  database: Database;
  /** The address it listens on, e.g. http://127.0.0.1:43121. */
  url: string;
  /** The address the hosted-apps listener (SPACES_PORT) listens on, e.g. http://127.0.0.1:43122. */
  spacesUrl: string;
  /** The origin in every app's URL: SPACES_ORIGIN, or by default PUBLIC_URL's host on the hosted-apps port. */
  spacesOrigin: string;
  close(): Promise<void>;
}

const LEVELS: NestLogLevel[] = ['fatal', 'error', 'warn', 'log', 'debug', 'verbose'];

export function logLevels(level: LogLevel): NestLogLevel[] {
  return LEVELS.slice(0, LEVELS.indexOf(level) + 1);
}

export interface CreateAppOptions {
  /** Serve the built dashboard (default true). */
  dashboard?: boolean;
  /** Where the built dashboard is (default apps/dashboard/dist; tests give a folder of their own). */
  dashboardDir?: string;
  /** Levels to print (default: LOG_LEVEL's), or false for none. */
  logger?: NestLogLevel[] | false;
  /** The SDK's script-tag build to serve at /sdk/v1/switchyard.js (default libs/sdk/dist/switchyard.js). */
  sdkScript?: string;
  /** Where log lines go (tests capture them); default stdout and stderr. */
  logWrite?: (line: string, level: NestLogLevel) => void;
  /** An embedded `memory://` database starts from this migrated snapshot (tests: test/support/test-database.ts). */
  databaseSnapshot?: Blob | null;
  /**
   * DATABASE_URL is another instance's embedded server in this process, whose one session every connection shares
   * (tests only: test/support/test-app.ts, startTwoInstances; Database.open's sharedSession).
   */
  sharedDatabaseSession?: boolean;
  /** log2 of scrypt's N for new password hashes instead of 15: tests only, to spare their CPU (docs/accounts.md). */
  passwordHashCost?: number;
}

/** The app's logger (LOG_FORMAT, LOG_LEVEL, secrets masked), for Nest and for anything logging before Nest runs. */
export function createLogger(
  config: AppConfig,
  levels: NestLogLevel[] = logLevels(config.logLevel),
  write?: CreateAppOptions['logWrite'],
): AppLogger {
  return new AppLogger({ format: config.logFormat, levels, apiKeyPrefix: config.apiKeyPrefix, write });
}

function listen(server: Server, port: number, host: string): Promise<string> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      const address = server.address() as AddressInfo;
      resolve(`http://${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}`);
    });
  });
}

/**
 * The default SPACES_ORIGIN: PUBLIC_URL's scheme and host on the hosted-apps listener's port. A loopback address
 * becomes `localhost`, whose subdomains (`{handle}--{slug}.localhost`, each app's origin) browsers resolve to it.
 */
export function defaultSpacesOrigin(publicUrl: string, spacesPort: number): string {
  const url = new URL(publicUrl);
  const host = ['127.0.0.1', '[::1]'].includes(url.hostname) ? 'localhost' : url.hostname;
  return `${url.protocol}//${host}:${spacesPort}`;
}

/**
 * Listens for hosted apps on SPACES_PORT (their own origin: docs/spaces.md), opens the database (migrating it),
 * builds the Nest app with every middleware, and listens on PORT.
 */
export async function createApp(given: AppConfig, options: CreateAppOptions = {}): Promise<RunningApp> {
  const logger = options.logger === false ? false : createLogger(given, options.logger, options.logWrite);
  // Lines written while the database opens and migrates go through it too, not through Nest's default logger.
  if (logger) Logger.overrideLogger(logger);
  // Hosted apps answer 503 until Nest is up; their port is taken first so that their origin is known.
  let hostApps: RequestListener = (_req, res) => {
    res.statusCode = 503;
    res.end();
  };
  const spacesServer = createServer((req, res) => hostApps(req, res));
  const spacesUrl = await listen(spacesServer, given.spacesPort, given.host);
  const spacesOrigin = given.spacesOrigin ?? defaultSpacesOrigin(given.publicUrl, Number(new URL(spacesUrl).port));
  const config: AppConfig = { ...given, spacesOrigin };
  let database: Database;
  try {
    // loadConfig refuses a SPACES_ORIGIN equal to PUBLIC_URL's; the default can only meet it through an odd PUBLIC_URL.
    const dashboardOrigin = new URL(given.publicUrl).origin;
    const listenerOrigin = `${new URL(given.publicUrl).protocol}//${new URL(given.publicUrl).hostname}:${new URL(spacesUrl).port}`;
    // (A loopback PUBLIC_URL's default is named localhost, but it must still not be the dashboard's own listener.)
    if (spacesOrigin === dashboardOrigin || (given.spacesOrigin === null && listenerOrigin === dashboardOrigin))
      throw new Error(
        `hosted apps would share the dashboard's origin ${dashboardOrigin}: set SPACES_ORIGIN (or SPACES_PORT) to give them their own`,
      );
    database = await Database.open(
      config,
      ENTITIES,
      options.databaseSnapshot ?? null,
      options.sharedDatabaseSession ?? false,
    );
  } catch (error) {
    spacesServer.close();
    throw error;
  }
  let app: NestExpressApplication | undefined;
  try {
    app = await NestFactory.create<NestExpressApplication>(
      AppModule.forRoot(config, database, options.passwordHashCost ?? null),
      {
        bodyParser: false,
        logger,
      },
    );
    app.set('trust proxy', config.trustProxy);
    app.disable('x-powered-by');
    app.set('etag', false);
    // A line per request at LOG_LEVEL log and below; nothing (not even the listener) above it.
    const logRequests = logLevels(config.logLevel).includes('log');
    app.use(
      requestContext(undefined, logRequests),
      securityHeaders,
      refuseBadUrls,
      oauthCors,
      cookieParser(),
      refuseCrossSiteWrites(config.publicUrl),
      ...bodyParsers([PAYMENT_WEBHOOK_PATH]),
    );
    // Hosted apps live on SPACES_ORIGIN only; their old addresses on this host lead there.
    app.use(spacesRedirect(spacesOrigin));
    // The SDK's script-tag build, for app makers' plain pages (docs/sdk.md).
    app.use(sdkScript(options.sdkScript));
    // Without a built dashboard there is nothing to serve (and Express refuses an empty app.use()).
    const dashboard =
      options.dashboard === false ? [] : dashboardStatic(options.dashboardDir, dashboardCsp(spacesOrigin));
    if (dashboard.length) app.use(...dashboard);
    app.useGlobalFilters(new AllExceptionsFilter());
    app.useGlobalPipes(createValidationPipe());

    // Built at its first request, not at every start: generating it costs about 70 ms of CPU that each start (and
    // each of the test suites' hundreds of app boots) spent for a document few ever read.
    let document: OpenAPIObject | undefined;
    const nest = app;
    app
      .getHttpAdapter()
      .getInstance()
      .get('/openapi.json', (_req: Request, res: Response) => {
        if (!document) {
          document = buildOpenApiDocument(nest, config.publicUrl);
          addGatewayPaths(document);
          addSpacesHostingPaths(document);
        }
        res.json(document);
      });

    // Gateway calls skip Express altogether (modules/proxy/front-door.ts): the gateway reads its own bodies (raw
    // JSON kept for pass-through, multipart streamed to disk) and needs none of the router's machinery.
    installFrontDoor(app.getHttpServer(), app.get(GatewayService), logRequests);
    if (config.publicUrl.startsWith('https:')) addStrictTransport(app.getHttpServer());
    if (spacesOrigin.startsWith('https:')) addStrictTransport(spacesServer);
    answerMalformedRequests(app.getHttpServer());
    // The hosted-apps listener lives as long as the API's: however Nest is closed (SIGTERM, a test closing the app
    // itself), the second port closes with it.
    app.getHttpServer().once('close', () => {
      if (spacesServer.listening) spacesServer.close();
    });
    await app.listen(config.port, config.host);
    hostApps = spacesHost(app.get(SpacesService), {
      dashboardOrigin: new URL(config.publicUrl).origin,
      gatewayUrl: config.publicUrl,
      spacesOrigin,
      sdkScript: readSdkScript(options.sdkScript),
      logRequests,
    });
    const address = app.getHttpServer().address() as AddressInfo;
    const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
    const running = app;
    return {
      app: running,
      database,
      url: `http://${host}:${address.port}`,
      spacesUrl,
      spacesOrigin,
      close: async () => {
        if (spacesServer.listening) await new Promise<void>((resolve) => spacesServer.close(() => resolve()));
        await running.close();
        await database.close();
      },
    };
  } catch (error) {
    if (spacesServer.listening) spacesServer.close();
    await app?.close().catch(() => undefined);
    await database.close();
    throw error;
  }
}
