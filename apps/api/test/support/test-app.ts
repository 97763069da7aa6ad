import { randomBytes } from 'node:crypto';
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
