import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { createApp, createLogger } from './app';
import { ConfigError, loadConfig } from './config/config';
import { startExampleApp } from './example-app';
import { DataDirInUseError } from './database/embedded-postgres';
import { CatalogError } from './modules/proxy';

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      for (const problem of error.problems) console.error(problem);
      process.exit(1);
    }
    throw error;
  }
  // From here on, every line (start-up failures included) has LOG_FORMAT's shape.
  Logger.overrideLogger(createLogger(config));
  const logger = new Logger('Switchyard');
  const running = await createApp(config).catch((error: unknown) => {
    if (error instanceof CatalogError) {
      for (const problem of error.problems) logger.fatal(problem);
      process.exit(1);
    }
    if (error instanceof DataDirInUseError) {
      logger.fatal(error.message);
      process.exit(1);
    }
    throw error;
  });
  // PUBLIC_URL first: the address to open (links, redirects and cookies are made for it), then the socket.
  logger.log(`PUBLIC_URL ${config.publicUrl} (listening on ${running.url}, ${running.database.kind} database)`);
  logger.log(
    `hosted space apps listening on ${running.spacesUrl}: each on its own origin {handle}--{slug}.${new URL(running.spacesOrigin).host} (nothing else is served there)`,
  );
  // Several instances on one PostgreSQL agree on limits, revocations and rates through Redis only.
  if (running.database.kind !== 'embedded' && !config.redisUrl)
    logger.warn(
      'REDIS_URL is unset: run one instance on this database; several instances need Redis to share rate limits and to see revoked keys and changed limits at once (docs/operations.md)',
    );
  if (!config.spacesOrigin && config.publicUrl.startsWith('https:'))
    logger.warn(
      `SPACES_ORIGIN is unset: apps are linked at ${running.spacesOrigin}; set it to a separate domain routed to port ${new URL(running.spacesUrl).port} (docs/operations.md)`,
    );

  // The example app (EXAMPLE_PORT, set by `npm start`): an app maker's app beside the service, not part of it.
  const example =
    config.examplePort === null
      ? null
      : await startExampleApp({ port: config.examplePort, host: config.host, switchyardUrl: config.publicUrl });

  let closing = false;
  const shutdown = (signal: string) => {
    if (closing) return;
    closing = true;
    logger.log(`${signal}: shutting down`);
    // Calls in flight get SHUTDOWN_GRACE_SECONDS (GatewayService), then the flushes need a moment more.
    const force = setTimeout(() => process.exit(1), (config.shutdownGraceSeconds + 15) * 1000);
    force.unref();
    example?.close();
    running.close().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error(`shutdown failed: ${(error as Error).message}`);
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}

main().catch((error: unknown) => {
  new Logger('Switchyard').fatal(`Switchyard failed to start: ${(error as Error).message}`);
  process.exit(1);
});
