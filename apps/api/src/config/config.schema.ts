import { existsSync, statSync } from 'node:fs';
import { emailForbiddenCharacter, normaliseEmail } from '@switchyard/shared-dto';

import type { ConfigVariable } from './app-config';
import { LOG_FORMATS, LOG_LEVELS } from './app-config';
import { bad, boolean, httpUrl, integer } from './config-values';

export * from './app-config';
export { ConfigValueError } from './config-values';

export const CONFIG_VARIABLES: ConfigVariable[] = [
  {
    env: 'PORT',
    key: 'port',
    description: 'TCP port to listen on (0 picks a free one)',
    defaultValue: '3000',
    parse: integer(0, 65535, 'set PORT to a free port such as 3000'),
  },
  {
    env: 'HOST',
    key: 'host',
    description: 'Address to listen on (0.0.0.0 for every interface)',
    defaultValue: '127.0.0.1',
    parse: (raw) => (raw.trim() ? raw.trim() : bad('must not be empty; set HOST to 127.0.0.1 or 0.0.0.0')),
  },
  {
    env: 'PUBLIC_URL',
    key: 'publicUrl',
    description: 'External base URL, used in redirects, checkout returns, links and as the OAuth issuer',
    defaultValue: 'http://localhost:$PORT',
    parse: httpUrl('set PUBLIC_URL to the address users reach, such as https://switchyard.example.com'),
  },
  {
    env: 'DATABASE_URL',
    key: 'databaseUrl',
    description: 'PostgreSQL connection string; unset runs the embedded PostgreSQL (PGlite) under DATA_DIR',
    secret: true,
    parse: (raw) => {
      let url: URL;
      try {
        url = new URL(raw);
      } catch {
        return bad(
          'is not a URL; use postgres://user:password@host:5432/database or unset it for the embedded database',
        );
      }
      if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:')
        bad('must start with postgres:// or postgresql://; unset it to use the embedded database');
      return raw;
    },
  },
  {
    env: 'DATA_DIR',
    key: 'dataDir',
    description: 'Where the embedded database and other local data live',
    defaultValue: './data',
    parse: (raw) => {
      if (!raw.trim()) bad('must not be empty; set DATA_DIR to a writable folder such as ./data');
      if (existsSync(raw) && !statSync(raw).isDirectory()) bad(`points at a file; set DATA_DIR to a folder`);
      return raw;
    },
  },
  {
    env: 'REDIS_URL',
    key: 'redisUrl',
    description:
      'Redis for rate-limit counters and cache invalidation shared by several instances; unset keeps them in-process',
    secret: true,
    parse: (raw) => {
      let url: URL;
      try {
        url = new URL(raw);
      } catch {
        return bad('is not a URL; use redis://host:6379 or unset it');
      }
      if (url.protocol !== 'redis:' && url.protocol !== 'rediss:') bad('must start with redis:// or rediss://');
      return raw;
    },
  },
  {
    env: 'REDIS_PREFIX',
    key: 'redisPrefix',
    description: 'Prefix of every Redis key, so deployments (or test runs) can share one Redis',
    defaultValue: 'sy:',
    parse: (raw) =>
      /^[A-Za-z0-9:_-]{1,32}$/.test(raw) ? raw : bad('must be 1-32 letters, digits, ":", "_" or "-", such as sy:'),
  },
  {
    env: 'MODELS_CONFIG',
    key: 'modelsConfig',
    description: 'Path to the provider and model catalog (YAML or JSON); unset uses the built-in demo catalog',
    parse: (raw) => {
      if (!existsSync(raw))
        bad(`file ${raw} does not exist; point MODELS_CONFIG at a readable YAML or JSON catalog or unset it`);
      if (!statSync(raw).isFile()) bad(`${raw} is not a file; point MODELS_CONFIG at a YAML or JSON catalog`);
      return raw;
    },
  },
  {
    env: 'ADMIN_EMAIL',
    key: 'adminEmail',
    description: 'Email of an admin account created or updated at start (with ADMIN_PASSWORD)',
    parse: (raw, env) => {
      const email = normaliseEmail(raw);
      const invisible = emailForbiddenCharacter(email);
      if (invisible) bad(`holds an invisible or formatting character (${invisible}); type the address again`);
      if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email)) bad('is not an email address');
      if (!env.ADMIN_PASSWORD) bad('is set but ADMIN_PASSWORD is not; set both or neither');
      return email;
    },
  },
  {
    env: 'ADMIN_PASSWORD',
    key: 'adminPassword',
    description: 'Password of the admin account (at least 12 characters)',
    secret: true,
    parse: (raw, env) => {
      if (raw.length < 12) bad('must be at least 12 characters');
      if (!env.ADMIN_EMAIL) bad('is set but ADMIN_EMAIL is not; set both or neither');
      return raw;
    },
  },
  {
    env: 'PLATFORM_FEE_PERCENT',
    key: 'platformFeePercent',
    description:
      "The operator's share of each app's markup, in whole percent; the maker earns the rest (docs/earnings.md)",
    defaultValue: '20',
    parse: integer(0, 100, 'set PLATFORM_FEE_PERCENT to a whole percent such as 20'),
  },
  {
    env: 'EARNINGS_HOLD_DAYS',
    key: 'earningsHoldDays',
    description: "Days a maker's earnings stay pending (for refunds and disputes) before they can be moved or paid out",
    defaultValue: '7',
    parse: integer(0, 365, 'set EARNINGS_HOLD_DAYS to a number of days such as 7'),
  },
  {
    env: 'SIGNUP_CREDIT',
    key: 'signupCredit',
    description: 'Budget granted to each new account, in currency units (unset with the demo catalog: 5)',
    defaultValue: '0',
    parse: (raw) => {
      if (!/^\d+(\.\d{1,6})?$/.test(raw.trim()))
        bad('must be a non-negative amount with at most 6 decimals, such as 5 or 0.50');
      const value = Number(raw);
      if (value > 1_000_000) bad('must be at most 1000000');
      return value;
    },
  },
  {
    env: 'STRIPE_SECRET_KEY',
    key: 'stripeSecretKey',
    description: 'Stripe secret key; unset runs the labelled sandbox checkout',
    secret: true,
    parse: (raw) =>
      /^(sk|rk)_(test|live)_/.test(raw) ? raw : bad('must start with sk_test_, sk_live_, rk_test_ or rk_live_'),
  },
  {
    env: 'STRIPE_WEBHOOK_SECRET',
    key: 'stripeWebhookSecret',
    description: 'Signing secret of the Stripe webhook endpoint',
    secret: true,
    parse: (raw) =>
      raw.startsWith('whsec_') ? raw : bad('must start with whsec_ (the endpoint signing secret from Stripe)'),
  },
  {
    env: 'STRIPE_API_BASE',
    key: 'stripeApiBase',
    description: 'Base URL of the Stripe API (tests point the official SDK at a local server)',
    parse: httpUrl('set STRIPE_API_BASE to a URL such as http://127.0.0.1:12111 or unset it'),
  },
  {
    env: 'PAYMENTS_SANDBOX',
    key: 'paymentsSandbox',
    description:
      'Allow the sandbox checkout (funds without payment, used while STRIPE_SECRET_KEY is unset) on a PUBLIC_URL that is not loopback; start-up refuses that otherwise',
    defaultValue: 'false',
    parse: boolean,
  },
  {
    env: 'SPACES_ORIGIN',
    key: 'spacesOrigin',
    description:
      "Origin (scheme, host, port) of the hosted space apps' host, on another host than PUBLIC_URL (ideally another registrable domain): each published app lives on its own origin {handle}--{slug}.<its host> (a wildcard DNS name and certificate); the dashboard host redirects /s/* there. Unset: PUBLIC_URL's host (localhost for a loopback address) on SPACES_PORT",
    parse: (raw) => {
      const value = httpUrl('set SPACES_ORIGIN to an origin such as https://switchyard-apps.example or unset it')(raw);
      const url = new URL(value);
      if (url.pathname !== '/' || url.search || url.hash || url.username || url.password)
        bad(
          'must be an origin only (scheme, host and port, no path); set it to such as https://switchyard-apps.example',
        );
      if (/^[\d.]+$|^\[/.test(url.hostname))
        bad(
          'must name a host, not an IP address: each app lives on a subdomain of it ({handle}--{slug}.switchyard-apps.example)',
        );
      return url.origin;
    },
  },
  {
    env: 'SPACES_PORT',
    key: 'spacesPort',
    description:
      'TCP port of the second listener, which serves hosted space apps only (/s/*: no API, no dashboard, no cookies); unset: PORT + 1 (0 when PORT is 0: a free one)',
    parse: integer(0, 65535, 'set SPACES_PORT to a free port such as 3001'),
  },
  {
    env: 'API_KEY_PREFIX',
    key: 'apiKeyPrefix',
    description: 'Prefix of API keys',
    defaultValue: 'sy-',
    parse: (raw) =>
      /^[a-z][a-z0-9]{0,8}-$/.test(raw)
        ? raw
        : bad('must be 1-9 lowercase letters or digits followed by "-", such as sy-'),
  },
  {
    env: 'LOG_LEVEL',
    key: 'logLevel',
    description: `Least severe level to log: ${LOG_LEVELS.join(', ')}`,
    defaultValue: 'log',
    parse: (raw) =>
      (LOG_LEVELS as readonly string[]).includes(raw) ? raw : bad(`must be one of ${LOG_LEVELS.join(', ')}`),
  },
  {
    env: 'LOG_FORMAT',
    key: 'logFormat',
    description:
      'Log lines as readable `text` or one JSON object per line (`json`: time, level, context, msg, requestId; the Docker image sets json)',
    defaultValue: 'text',
    parse: (raw) =>
      (LOG_FORMATS as readonly string[]).includes(raw) ? raw : bad(`must be one of ${LOG_FORMATS.join(', ')}`),
  },
  {
    env: 'TRUST_PROXY',
    key: 'trustProxy',
    description: 'Trust X-Forwarded-For from a reverse proxy when reading the client address (rate limits)',
    defaultValue: 'false',
    parse: boolean,
  },
  {
    env: 'OAUTH_DYNAMIC_REGISTRATION',
    key: 'oauthDynamicRegistration',
    description: 'Let agent hosts (MCP clients) register public PKCE apps by themselves at /oauth2/register (RFC 7591)',
    defaultValue: 'true',
    parse: boolean,
  },
  {
    env: 'OIDC_KEY_SECRET',
    key: 'oidcKeySecret',
    description:
      'Encrypts the private ID token signing keys kept in the database (at least 32 characters, the same on every instance); unset stores them unencrypted (they are never served either way)',
    secret: true,
    parse: (raw) => {
      if (raw.length < 32) bad('must be at least 32 characters, for example the output of `openssl rand -base64 32`');
      return raw;
    },
  },
  {
    env: 'OIDC_KEY_ROTATION_DAYS',
    key: 'oidcKeyRotationDays',
    description:
      'Days an ID token signing key signs before the next one takes over (the previous one stays published one period more)',
    defaultValue: '30',
    parse: integer(1, 365, 'set OIDC_KEY_ROTATION_DAYS to a number of days such as 30'),
  },
  {
    env: 'EXAMPLE_PORT',
    key: 'examplePort',
    description:
      "Port of the example chat app (apps/example-chat, an app maker's app on an origin of its own); `npm start` sets 3002; unset serves none",
    parse: integer(0, 65535, 'set EXAMPLE_PORT to a free port such as 3002, or leave it unset'),
  },
  {
    env: 'METRICS_TOKEN',
    key: 'metricsToken',
    description: 'Bearer token that /metrics (Prometheus) requires; unset serves /metrics to anyone who can reach it',
    secret: true,
    parse: (raw) => {
      if (raw.length < 16) bad('must be at least 16 characters');
      return raw;
    },
  },
  {
    env: 'GATEWAY_RPM',
    key: 'gatewayRpm',
    description:
      'Default gateway requests per minute per API key and per app and user (a key or app may set its own); 0 means no limit',
    defaultValue: '0',
    parse: integer(0, 1_000_000, 'set GATEWAY_RPM to a number of requests per minute such as 600, or 0 for no limit'),
  },
  {
    env: 'COUNT_TOKENS_RPM',
    key: 'countTokensRpm',
    description:
      'POST /v1/messages/count_tokens (and Gemini’s countTokens) calls per minute per API key and per app and user, on top of GATEWAY_RPM (a count reaches the provider and is free); 0 means no limit',
    defaultValue: '60',
    parse: integer(
      0,
      1_000_000,
      'set COUNT_TOKENS_RPM to a number of requests per minute such as 60, or 0 for no limit',
    ),
  },
  {
    env: 'FETCH_ALLOWED_PORTS',
    key: 'fetchAllowedPorts',
    description:
      'Ports that caller-supplied URLs fetched by the gateway (image URLs for providers that need the bytes) may use, comma-separated',
    defaultValue: '80,443',
    parse: (raw) => {
      const ports = raw.split(',').map((part) => part.trim());
      if (!ports.every((port) => /^\d{1,5}$/.test(port) && Number(port) >= 1 && Number(port) <= 65535))
        bad('must be a comma-separated list of ports from 1 to 65535, such as 80,443');
      return [...new Set(ports.map(Number))];
    },
  },
  {
    env: 'SHUTDOWN_GRACE_SECONDS',
    key: 'shutdownGraceSeconds',
    description: 'On SIGTERM, how long calls in flight may run on before they are cut (new calls get 503 meanwhile)',
    defaultValue: '10',
    parse: integer(0, 600, 'set SHUTDOWN_GRACE_SECONDS to a number of seconds such as 10'),
  },
  {
    env: 'SESSION_TTL_HOURS',
    key: 'sessionTtlHours',
    description: 'Lifetime of a dashboard session',
    defaultValue: '720',
    parse: integer(1, 8760, 'set SESSION_TTL_HOURS to a number of hours such as 720'),
  },
  {
    env: 'AUTH_RATE_LIMIT_PER_IP',
    key: 'authRateLimitPerIp',
    description: 'Sign-in and registration attempts allowed per client address per window',
    defaultValue: '30',
    parse: integer(1, 1_000_000, 'set AUTH_RATE_LIMIT_PER_IP to a number such as 30'),
  },
  {
    env: 'LOGIN_FAILURES_PER_ACCOUNT',
    key: 'loginFailuresPerAccount',
    description: 'Failed sign-ins allowed per account per window before it answers 429',
    defaultValue: '5',
    parse: integer(1, 1000, 'set LOGIN_FAILURES_PER_ACCOUNT to a number such as 5'),
  },
  {
    env: 'RATE_LIMIT_WINDOW_SECONDS',
    key: 'rateLimitWindowSeconds',
    description: 'Window of the sign-in, registration and gift-card rate limits',
    defaultValue: '900',
    parse: integer(1, 86400, 'set RATE_LIMIT_WINDOW_SECONDS to a number such as 900'),
  },
  {
    env: 'GIFTCARD_ATTEMPTS_PER_ACCOUNT',
    key: 'giftcardAttemptsPerAccount',
    description: 'Gift-card redemption attempts allowed per account per window (against guessing)',
    defaultValue: '10',
    parse: integer(1, 1_000_000, 'set GIFTCARD_ATTEMPTS_PER_ACCOUNT to a number such as 10'),
  },
  {
    env: 'GIFTCARD_ATTEMPTS_PER_IP',
    key: 'giftcardAttemptsPerIp',
    description: 'Gift-card redemption attempts allowed per client address per window',
    defaultValue: '30',
    parse: integer(1, 1_000_000, 'set GIFTCARD_ATTEMPTS_PER_IP to a number such as 30'),
  },
  {
    env: 'DB_POOL_SIZE',
    key: 'dbPoolSize',
    description: 'Database connections per instance (on PostgreSQL, two more for the usage and settlement batches)',
    defaultValue: '10',
    parse: integer(1, 200, 'set DB_POOL_SIZE to a number such as 10'),
  },
  {
    env: 'SMTP_URL',
    key: 'smtpUrl',
    description:
      'SMTP server that sends mail (password reset, address verification, receipts, alerts), as smtp://user:password@host:587 (STARTTLS when offered) or smtps://…:465; unset writes each mail to DATA_DIR/mail and logs it',
    secret: true,
    parse: (raw) => {
      const url = URL.canParse(raw) ? new URL(raw) : null;
      if (!url || (url.protocol !== 'smtp:' && url.protocol !== 'smtps:') || !url.hostname)
        bad('must be smtp://user:password@host:587 or smtps://user:password@host:465, or unset');
      return raw;
    },
  },
  {
    env: 'MAIL_FROM',
    key: 'mailFrom',
    description:
      "Sender of the service's mail, as an address or `Name <address>`; unset: Switchyard <no-reply@PUBLIC_URL's host>",
    parse: (raw) =>
      /^[^\s@]+@[^\s@]+$/.test(/<([^<>]+)>\s*$/.exec(raw)?.[1] ?? raw.trim()) && !/[\r\n]/.test(raw)
        ? raw.trim()
        : bad('must be an email address or `Name <address>`, such as Switchyard <no-reply@example.com>'),
  },
  {
    env: 'PASSWORD_RESET_TTL_MINUTES',
    key: 'passwordResetTtlMinutes',
    description: 'How long a password-reset link works (it works once)',
    defaultValue: '30',
    parse: integer(5, 1440, 'set PASSWORD_RESET_TTL_MINUTES to a number of minutes such as 30'),
  },
  {
    env: 'PASSWORD_RESETS_PER_ACCOUNT',
    key: 'passwordResetsPerAccount',
    description:
      'Password-reset and verification mails one address may be sent per window (RATE_LIMIT_WINDOW_SECONDS); counted whether or not an account has it',
    defaultValue: '3',
    parse: integer(1, 100, 'set PASSWORD_RESETS_PER_ACCOUNT to a number such as 3'),
  },
  {
    env: 'REQUIRE_VERIFIED_EMAIL_FOR_TOPUP',
    key: 'requireVerifiedEmailForTopUp',
    description:
      'Refuse card top-ups and gift-card redemptions (403 EMAIL_UNVERIFIED) until the account has verified its address; accounts may always sign in and call models',
    defaultValue: 'false',
    parse: boolean,
  },
];
