import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError, loadConfig } from './config';
import { CONFIG_VARIABLES } from './config.schema';

const problemsOf = (env: Record<string, string>) => {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
};

describe('loadConfig', () => {
  it('applies the documented defaults when nothing is set', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      port: 3000,
      host: '127.0.0.1',
      publicUrl: 'http://localhost:3000',
      databaseUrl: null,
      dataDir: './data',
      redisUrl: null,
      modelsConfig: null,
      adminEmail: null,
      signupCredit: 5,
      stripeSecretKey: null,
      spacesOrigin: null,
      apiKeyPrefix: 'sy-',
    });
  });

  it('grants no sign-up credit by default once a catalog is configured', () => {
    expect(loadConfig({ MODELS_CONFIG: __filename }).signupCredit).toBe(0);
    expect(loadConfig({ SIGNUP_CREDIT: '0' }).signupCredit).toBe(0);
  });

  it('derives PUBLIC_URL from PORT and drops a trailing slash from a given one', () => {
    expect(loadConfig({ PORT: '8080' }).publicUrl).toBe('http://localhost:8080');
    expect(loadConfig({ PUBLIC_URL: 'https://sy.example.com/' }).publicUrl).toBe('https://sy.example.com');
  });

  it('reports every bad variable, one line each, naming the variable and the fix', () => {
    const problems = problemsOf({ PORT: 'abc', PUBLIC_URL: 'ftp://x', SIGNUP_CREDIT: '-1', LOG_LEVEL: 'loud' });
    expect(problems).toHaveLength(4);
    expect(problems[0]).toBe('Invalid configuration: PORT="abc" must be a whole number from 0 to 65535; set PORT to a free port such as 3000');
    expect(problems.some((line) => line.startsWith('Invalid configuration: PUBLIC_URL="ftp://x" must start with http'))).toBe(true);
    expect(problems.some((line) => line.startsWith('Invalid configuration: SIGNUP_CREDIT'))).toBe(true);
    expect(problems.some((line) => line.includes('LOG_LEVEL') && line.includes('error, warn, log, debug, verbose'))).toBe(true);
    for (const line of problems) expect(line).not.toContain('\n');
  });

  it('lets the fetch guard dial ports 80 and 443 only unless FETCH_ALLOWED_PORTS lists others', () => {
    expect(loadConfig({}).fetchAllowedPorts).toEqual([80, 443]);
    expect(loadConfig({ FETCH_ALLOWED_PORTS: '443, 8443' }).fetchAllowedPorts).toEqual([443, 8443]);
    for (const bad of ['0', '80,', '65536', 'http', '80;443'])
      expect(problemsOf({ FETCH_ALLOWED_PORTS: bad })).toEqual([expect.stringContaining('FETCH_ALLOWED_PORTS')]);
  });

  it('never echoes a secret value', () => {
    const problems = problemsOf({ DATABASE_URL: 'mysql://root:hunter2@db/x', STRIPE_SECRET_KEY: 'pk_live_hunter2' });
    expect(problems).toHaveLength(2);
    expect(problems.join('\n')).not.toContain('hunter2');
  });

  it('wants ADMIN_EMAIL and ADMIN_PASSWORD together, with a long password', () => {
    expect(problemsOf({ ADMIN_EMAIL: 'admin@example.com' })).toEqual([
      'Invalid configuration: ADMIN_EMAIL="admin@example.com" is set but ADMIN_PASSWORD is not; set both or neither',
    ]);
    expect(problemsOf({ ADMIN_EMAIL: 'admin@example.com', ADMIN_PASSWORD: 'short' })).toEqual([
      'Invalid configuration: ADMIN_PASSWORD must be at least 12 characters',
    ]);
  });

  it('checks that MODELS_CONFIG names a readable file', () => {
    expect(problemsOf({ MODELS_CONFIG: '/nonexistent/models.yaml' })[0]).toContain('MODELS_CONFIG');
  });

  it('is documented: README.md and .env.example name every variable', () => {
    const root = join(__dirname, '..', '..', '..', '..');
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    const example = readFileSync(join(root, '.env.example'), 'utf8');
    for (const variable of CONFIG_VARIABLES) {
      expect(readme).toContain(`\`${variable.env}\``);
      expect(example).toContain(`${variable.env}=`);
    }
  });
});
