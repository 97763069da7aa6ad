import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import type { AppConfig } from '../../src/config/config.schema';
import { testConfig } from '../../src/config/config';
import { createApp, CreateAppOptions, RunningApp } from '../../src/app';
import { createTestDatabase, TestDatabase } from './test-database';

export interface TestApp extends RunningApp {
  config: AppConfig;
  /** fetch against the app: `http('/api/v1/auth/me', { token })`. */
  http: (path: string, init?: TestRequest) => Promise<TestResponse>;
  /** The database it runs on (a second instance can be started on the same one). */
  testDatabase: TestDatabase;
}

export interface TestRequest {
  method?: string;
  body?: unknown;
  /** A raw body sent as is (for malformed JSON). */
  rawBody?: string;
  token?: string;
  headers?: Record<string, string>;
}

export interface TestResponse {
  status: number;
  headers: Headers;
  body: any;
  cookies: Record<string, string>;
}

/**
 * Boots the real app on a random port against a real database (embedded by default, the server named by
 * DATABASE_URL in CI) and Redis when REDIS_URL is set. The auth limits are raised so suites can register many
 * users from 127.0.0.1; suites that test the limits lower them.
 */
export async function startTestApp(
  overrides: Partial<AppConfig> = {},
  database?: TestDatabase,
  appOptions: CreateAppOptions = {},
): Promise<TestApp> {
  const testDatabase = database ?? (await createTestDatabase());
  const config = testConfig({
    port: 0,
    host: '127.0.0.1',
    databaseUrl: testDatabase.databaseUrl,
    dataDir: testDatabase.dataDir,
    redisUrl: process.env.REDIS_URL ?? null,
    // Each app gets its own keys, so counters of one suite never leak into another's.
    redisPrefix: `sy-test-${randomBytes(4).toString('hex')}:`,
    logLevel: 'error',
    authRateLimitPerIp: 10_000,
    dbPoolSize: 5,
    ...overrides,
  });
  const running = await createApp(config, {
    dashboard: false,
    logger: ['fatal', 'error'],
    databaseSnapshot: testDatabase.snapshot ?? null,
    // scrypt at N=2^10 instead of 2^15: 2–4 ms of CPU per password instead of 100–300 ms, on every registration,
    // sign-in and password change of every suite (issue 27). The hash is as real, its cost stored with it.
    passwordHashCost: 10,
    ...appOptions,
  });
  const http = async (path: string, init: TestRequest = {}): Promise<TestResponse> => {
    const headers: Record<string, string> = { ...init.headers };
    if (init.token) headers.authorization = `Bearer ${init.token}`;
    let body: string | undefined = init.rawBody;
    if (init.body !== undefined) {
      body = JSON.stringify(init.body);
      headers['content-type'] ??= 'application/json';
    } else if (body !== undefined) headers['content-type'] ??= 'application/json';
    const response = await fetch(running.url + path, { method: init.method ?? (body ? 'POST' : 'GET'), headers, body });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      // not JSON: keep the text
    }
    return {
      status: response.status,
      headers: response.headers,
      body: parsed,
      cookies: parseSetCookies(response.headers),
    };
  };
  return {
    ...running,
    config,
    http,
    testDatabase,
    close: async () => {
      await running.close();
      if (!database) await testDatabase.drop();
    },
  };
}

export interface TwoInstances {
  /** The first owns the database (and drops it, unless CI keeps it); the second reaches the same one. */
  apps: [TestApp, TestApp];
  /** Closes the second, then the first. */
  close(): Promise<void>;
}

/**
 * Two instances of the app on one database, as behind a load balancer: both answer as one PUBLIC_URL (the OAuth
 * issuer, on the first's port), and with REDIS_URL set they share one Redis prefix, their bus and counters, as
 * several instances of the product do. On a server (DATABASE_URL) the second opens the same database; on the
 * embedded one it reaches the first's PGlite through its socket bridge, opened as a shared session from the start
 * (Database.open's sharedSession: per-connection statement names, no batch pool), since every connection of both
 * lands on that one session. The database is the first's, made by createTestDatabase in the calling test file, so
 * CI's SY_TEST_KEEP_DATABASES / SY_TEST_KEEP_FILES keep and reconcile it as for one instance.
 */
export async function startTwoInstances(overrides: Partial<AppConfig> = {}): Promise<TwoInstances> {
  const port = await freePort();
  const config = { publicUrl: `http://127.0.0.1:${port}`, ...overrides };
  const first = await startTestApp({ ...config, port });
  let second: TestApp;
  try {
    const embedded = !first.testDatabase.databaseUrl;
    const url = first.testDatabase.databaseUrl ?? (first.database.dataSource.options as { url: string }).url;
    second = await startTestApp(
      { ...config, redisPrefix: first.config.redisPrefix },
      { databaseUrl: url, dataDir: 'memory://', drop: async () => undefined },
      { sharedDatabaseSession: embedded },
    );
  } catch (error) {
    await first.close();
    throw error;
  }
  return {
    apps: [first, second],
    close: async () => {
      await second.close();
      await first.close();
    },
  };
}

/** A port nothing listens on right now, so an app can be started with a PUBLIC_URL (its OAuth issuer) that matches. */
export async function freePort(): Promise<number> {
  // Below Linux's ephemeral range (32768–60999): a port the OS hands out for listen(0) is free only until some
  // outgoing connection of the same run (database, HTTP clients) takes it as its local port before the app
  // listens (EADDRINUSE, seen once in a full run). A random port below that range is not handed out that way.
  for (let attempt = 0; attempt < 50; attempt += 1) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    if (await listensOn(port)) return port;
  }
  return listensOn(0) as Promise<number>;
}

/** Binds `port` on loopback and lets it go: the port bound (false when it was taken). */
async function listensOn(port: number): Promise<number | false> {
  const server = createServer();
  const bound = await new Promise<boolean>((resolve) => {
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => resolve(true));
  });
  if (!bound) return false;
  const { port: taken } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return taken;
}

export function parseSetCookies(headers: Headers): Record<string, string> {
  const cookies: Record<string, string> = {};
  for (const line of headers.getSetCookie()) {
    const [pair] = line.split(';');
    const index = pair.indexOf('=');
    cookies[pair.slice(0, index).trim()] = decodeURIComponent(pair.slice(index + 1).trim());
  }
  return cookies;
}

let counter = 0;
export function uniqueEmail(tag = 'user'): string {
  counter += 1;
  return `${tag}-${Date.now().toString(36)}-${counter}@example.com`;
}
