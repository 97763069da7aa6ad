import { AppConfig, CONFIG_VARIABLES, ConfigValueError } from './config.schema';

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
  if (problems.length) throw new ConfigError(problems);
  return values as AppConfig;
}

/** A config for tests and tools: defaults, overridden by the given values. */
export function testConfig(overrides: Partial<AppConfig> = {}): AppConfig {
  return { ...loadConfig({}), ...overrides };
}
