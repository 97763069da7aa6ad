/**
 * Every environment variable the service reads, described once. `loadConfig` parses them all at start and
 * reports every bad one in one line each, naming the variable and the fix (docs/decisions.md#configuration).
 */
export interface AppConfig {
  port: number;
  host: string;
  publicUrl: string;
  databaseUrl: string | null;
  dataDir: string;
  redisUrl: string | null;
  redisPrefix: string;
  modelsConfig: string | null;
  adminEmail: string | null;
  adminPassword: string | null;
  signupCredit: number;
  /** The operator's share of each app markup, in percent (docs/earnings.md). */
  platformFeePercent: number;
  /** Days a maker's earnings stay pending (refunds, disputes) before they are available. */
  earningsHoldDays: number;
  stripeSecretKey: string | null;
  stripeWebhookSecret: string | null;
  stripeApiBase: string | null;
  paymentsSandbox: boolean;
  /** As configured; createApp resolves an unset one to `http://<PUBLIC_URL's host>:<spaces port>`. */
  spacesOrigin: string | null;
  /** Always a number once loaded: unset means PORT + 1 (0 when PORT is 0). */
  spacesPort: number;
  apiKeyPrefix: string;
  logLevel: LogLevel;
  logFormat: LogFormat;
  trustProxy: boolean;
  oauthDynamicRegistration: boolean;
  /** Seals the ID token signing keys stored in the database (docs/oauth.md#openid-connect); null: stored unsealed. */
  oidcKeySecret: string | null;
  oidcKeyRotationDays: number;
  /** The example app's port (npm start); null: not served. */
  examplePort: number | null;
  shutdownGraceSeconds: number;
  gatewayRpm: number;
  countTokensRpm: number;
  fetchAllowedPorts: number[];
  metricsToken: string | null;
  sessionTtlHours: number;
  authRateLimitPerIp: number;
  loginFailuresPerAccount: number;
  rateLimitWindowSeconds: number;
  giftcardAttemptsPerAccount: number;
  giftcardAttemptsPerIp: number;
  dbPoolSize: number;
  smtpUrl: string | null;
  mailFrom: string | null;
  passwordResetTtlMinutes: number;
  passwordResetsPerAccount: number;
  requireVerifiedEmailForTopUp: boolean;
}

export const LOG_LEVELS = ['error', 'warn', 'log', 'debug', 'verbose'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
export const LOG_FORMATS = ['text', 'json'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

export interface ConfigVariable<K extends keyof AppConfig = keyof AppConfig> {
  env: string;
  key: K;
  description: string;
  /** The default as documented; `undefined` means the variable is optional and unset means null. */
  defaultValue?: string;
  secret?: boolean;
  /** Parse the raw value or throw a ConfigValueError whose message says what is wrong and how to fix it. */
  parse: (raw: string, env: Record<string, string | undefined>) => AppConfig[K];
}
