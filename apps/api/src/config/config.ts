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
  if (values.publicUrl && !values.stripeSecretKey && !values.paymentsSandbox && !isLoopbackUrl(values.publicUrl as string))
    problems.push(
      `Invalid configuration: STRIPE_SECRET_KEY is unset while PUBLIC_URL=${JSON.stringify(values.publicUrl)} is not a loopback address, so anyone could add funds ` +
        'through the sandbox checkout without paying; set STRIPE_SECRET_KEY, or PAYMENTS_SANDBOX=1 to run the sandbox there on purpose',
    );
  if (problems.length) throw new ConfigError(problems);
  // The demo catalog is for trying Switchyard out: without a catalog and without SIGNUP_CREDIT, new accounts
  // get a small demo budget so a fresh install works end to end (decisions.md section 2: "the demo may set more").
  if (!env.SIGNUP_CREDIT && !values.modelsConfig) values.signupCredit = DEMO_SIGNUP_CREDIT;
  return values as AppConfig;
}

/** Whether a URL's host is this machine (localhost, 127.0.0.1 or [::1]). */
export function isLoopbackUrl(url: string): boolean {
  return ['localhost', '127.0.0.1', '[::1]'].includes(new URL(url).hostname);
}

/** A config for tests and tools: defaults, overridden by the given values. */
export function testConfig(overrides: Partial<AppConfig> = {}): AppConfig {
  return { ...loadConfig({}), ...overrides };
}
