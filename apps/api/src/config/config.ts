import { AppConfig, CONFIG_VARIABLES, ConfigValueError } from './config.schema';

/** Sign-up credit, in currency units, when the demo catalog runs and SIGNUP_CREDIT is unset. */
export const DEMO_SIGNUP_CREDIT = 5;

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(problems.join('\n'));
    this.name = 'ConfigError';
  }
}

/**
 * Reads and validates every variable of config.schema.ts at once. Throws a ConfigError listing every bad
 * variable, one line each; never echoes a secret's value.
 */
export function loadConfig(env: Record<string, string | undefined> = process.env): AppConfig {
  const problems: string[] = [];
  const values: Partial<Record<keyof AppConfig, unknown>> = {};
  const port = env.PORT?.trim() ? env.PORT.trim() : '3000';
  for (const variable of CONFIG_VARIABLES) {
    const given = env[variable.env];
    const raw =
      given !== undefined && given !== ''
        ? given
        : variable.defaultValue !== undefined
          ? variable.defaultValue.replace('$PORT', port)
          : undefined;
    if (raw === undefined) {
      values[variable.key] = null;
      continue;
    }
    try {
      values[variable.key] = variable.parse(raw, env);
    } catch (error) {
      if (!(error instanceof ConfigValueError)) throw error;
      const shown = variable.secret ? '' : `=${JSON.stringify(raw)}`;
      problems.push(`Invalid configuration: ${variable.env}${shown} ${error.message}`);
    }
  }
  // The sandbox checkout hands out funds without payment: it stands in for Stripe on a local install, and on a
  // public address only when the operator says so.
  if (
    values.publicUrl &&
    !values.stripeSecretKey &&
    !values.paymentsSandbox &&
    !isLoopbackUrl(values.publicUrl as string)
  )
    problems.push(
      `Invalid configuration: STRIPE_SECRET_KEY is unset while PUBLIC_URL=${JSON.stringify(values.publicUrl)} is not a loopback address, so anyone could add funds ` +
        'through the sandbox checkout without paying; set STRIPE_SECRET_KEY, or PAYMENTS_SANDBOX=1 to run the sandbox there on purpose',
    );
  problems.push(...spacesProblems(values));
  if (problems.length) throw new ConfigError(problems);
  // The demo catalog is for trying Switchyard out: without a catalog and without SIGNUP_CREDIT, new accounts
  // get a small demo budget so a fresh install works end to end (docs/decisions.md#configuration, SIGNUP_CREDIT).
  if (!env.SIGNUP_CREDIT && !values.modelsConfig) values.signupCredit = DEMO_SIGNUP_CREDIT;
  return values as AppConfig;
}

/** Whether a URL's host is this machine (localhost, 127.0.0.1 or [::1]). */
export function isLoopbackUrl(url: string): boolean {
  return ['localhost', '127.0.0.1', '[::1]'].includes(new URL(url).hostname);
}

/**
 * The hosted apps' listener and origin must differ from the dashboard's: the same origin would give model-written
 * pages the dashboard's address (and the redirect of /s/* would loop). Fills in SPACES_PORT's default.
 */
function spacesProblems(values: Partial<Record<keyof AppConfig, unknown>>): string[] {
  const port = values.port;
  if (typeof port !== 'number') return []; // PORT's own problem is reported already
  if (values.spacesPort === null) {
    if (port === 65535)
      return ['Invalid configuration: SPACES_PORT is unset and PORT + 1 is not a port; set SPACES_PORT to a free port'];
    values.spacesPort = port === 0 ? 0 : port + 1;
  }
  const problems: string[] = [];
  if (port !== 0 && values.spacesPort === port)
    problems.push(
      `Invalid configuration: SPACES_PORT="${port}" is PORT; hosted apps need a port of their own, such as ${port === 65535 ? port - 1 : port + 1}`,
    );
  if (
    typeof values.spacesOrigin === 'string' &&
    typeof values.publicUrl === 'string' &&
    values.spacesOrigin === new URL(values.publicUrl).origin
  )
    problems.push(
      `Invalid configuration: SPACES_ORIGIN=${JSON.stringify(values.spacesOrigin)} is PUBLIC_URL's origin; hosted apps need an origin of their own, such as https://switchyard-apps.example`,
    );
  return problems;
}

/** A config for tests and tools: defaults (but hosted apps on a free port), overridden by the given values. */
export function testConfig(overrides: Partial<AppConfig> = {}): AppConfig {
  return { ...loadConfig({}), spacesPort: 0, ...overrides };
}
