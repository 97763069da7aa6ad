import express from 'express';
import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { Logger } from '@nestjs/common';

export function defaultExampleDir(): string {
  // apps/api/src (tests) and apps/api/dist (the build) both sit two levels below apps/.
  return resolve(__dirname, '..', '..', 'example-chat', 'dist');
}

/**
 * `npm start`'s third listener (EXAMPLE_PORT): the built example chat app (apps/example-chat, docs/sdk.md), an
 * app maker's app on an origin of its own, and `/config.json` telling it where Switchyard is (PUBLIC_URL). It is
 * no part of the service: without a build, or when its port is taken, start-up says so and goes on.
 */
export async function startExampleApp(options: {
  port: number;
  host: string;
  switchyardUrl: string;
  dir?: string;
}): Promise<Server | null> {
  const logger = new Logger('ExampleApp');
  const dir = options.dir ?? defaultExampleDir();
  if (!existsSync(join(dir, 'index.html'))) {
    logger.warn(`no built example app at ${dir}; run "npm run build" to serve it`);
    return null;
  }
  const app = express();
  app.disable('x-powered-by');
  app.get('/config.json', (_req, res) => {
    res.setHeader('Cache-Control', 'no-store');
    res.json({ switchyardUrl: options.switchyardUrl });
  });
  app.use(express.static(dir, { index: false }));
  app.use((req, res) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return res.status(404).end();
    res.setHeader('Cache-Control', 'no-cache');
    res.sendFile(join(dir, 'index.html'));
  });
  const server = createServer(app);
  try {
    await new Promise<void>((done, fail) => {
      server.once('error', fail);
      server.listen(options.port, options.host, () => done());
    });
  } catch (error) {
    logger.warn(`the example app could not listen on port ${options.port}: ${(error as Error).message}`);
    return null;
  }
  const { port } = server.address() as AddressInfo;
  logger.log(`example chat app (an app maker's app, on its own origin) at http://localhost:${port}`);
  return server;
}
