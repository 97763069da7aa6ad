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
      spacesPort: 3001,
      apiKeyPrefix: 'sy-',
    });
  });

  it('gives hosted apps a port of their own: SPACES_PORT defaults to PORT + 1, or a free one when PORT is 0', () => {
    expect(loadConfig({ PORT: '8080' }).spacesPort).toBe(8081);
    expect(loadConfig({ PORT: '0' }).spacesPort).toBe(0);
    expect(loadConfig({ PORT: '8080', SPACES_PORT: '9000' }).spacesPort).toBe(9000);
    expect(problemsOf({ PORT: '65535' })).toEqual([
      'Invalid configuration: SPACES_PORT is unset and PORT + 1 is not a port; set SPACES_PORT to a free port',
    ]);
    expect(problemsOf({ PORT: '8080', SPACES_PORT: '8080' })).toEqual([
      'Invalid configuration: SPACES_PORT="8080" is PORT; hosted apps need a port of their own, such as 8081',
    ]);
    expect(loadConfig({ PORT: '0', SPACES_PORT: '0' }).spacesPort).toBe(0);
  });

  it('refuses a SPACES_ORIGIN that is the dashboard’s own origin, or more than an origin', () => {
    expect(loadConfig({ SPACES_ORIGIN: 'https://switchyard-apps.example/' }).spacesOrigin).toBe(
      'https://switchyard-apps.example',
    );
    expect(
      problemsOf({
        PUBLIC_URL: 'https://sy.example.com',
        SPACES_ORIGIN: 'https://sy.example.com',
        PAYMENTS_SANDBOX: '1',
      }),
    ).toEqual([
      `Invalid configuration: SPACES_ORIGIN="https://sy.example.com" is PUBLIC_URL's origin; hosted apps need an origin of their own, such as https://switchyard-apps.example`,
    ]);
    // The default PUBLIC_URL counts too.
    expect(problemsOf({ SPACES_ORIGIN: 'http://localhost:3000' })).toHaveLength(1);
    for (const origin of [
      'https://apps.example/s',
      'https://apps.example?x=1',
      'https://user:pw@apps.example',
      'ftp://apps.example',
      // Apps live on subdomains of its host ({handle}--{slug}.…): an address has none.
      'http://127.0.0.1:3001',
      'http://[::1]:3001',
    ])
      expect([origin, problemsOf({ SPACES_ORIGIN: origin })[0]]).toEqual([
        origin,
        expect.stringContaining('Invalid configuration: SPACES_ORIGIN='),
      ]);
  });

  it('grants no sign-up credit by default once a catalog is configured', () => {
    expect(loadConfig({ MODELS_CONFIG: __filename }).signupCredit).toBe(0);
    expect(loadConfig({ SIGNUP_CREDIT: '0' }).signupCredit).toBe(0);
  });

  it('derives PUBLIC_URL from PORT and drops a trailing slash from a given one', () => {
    expect(loadConfig({ PORT: '8080' }).publicUrl).toBe('http://localhost:8080');
    expect(loadConfig({ PUBLIC_URL: 'https://sy.example.com/', PAYMENTS_SANDBOX: '1' }).publicUrl).toBe(
      'https://sy.example.com',
    );
  });

  it('reports every bad variable, one line each, naming the variable and the fix', () => {
    const problems = problemsOf({ PORT: 'abc', PUBLIC_URL: 'ftp://x', SIGNUP_CREDIT: '-1', LOG_LEVEL: 'loud' });
    expect(problems).toHaveLength(4);
    expect(problems[0]).toBe(
      'Invalid configuration: PORT="abc" must be a whole number from 0 to 65535; set PORT to a free port such as 3000',
    );
    expect(
      problems.some((line) => line.startsWith('Invalid configuration: PUBLIC_URL="ftp://x" must start with http')),
    ).toBe(true);
    expect(problems.some((line) => line.startsWith('Invalid configuration: SIGNUP_CREDIT'))).toBe(true);
    expect(
      problems.some((line) => line.includes('LOG_LEVEL') && line.includes('error, warn, log, debug, verbose')),
    ).toBe(true);
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

  it('refuses to start the sandbox checkout (funds without payment) on a public PUBLIC_URL unless PAYMENTS_SANDBOX=1 says so', () => {
    const problems = problemsOf({ PUBLIC_URL: 'https://switchyard.example.com' });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(
      /^Invalid configuration: STRIPE_SECRET_KEY is unset while PUBLIC_URL="https:\/\/switchyard.example.com" is not a loopback address.*PAYMENTS_SANDBOX=1/,
    );
    expect(problems[0]).not.toContain('\n');
    expect(problemsOf({ PUBLIC_URL: 'https://switchyard.example.com', PAYMENTS_SANDBOX: '1' })).toEqual([]);
    expect(loadConfig({ PUBLIC_URL: 'https://switchyard.example.com', PAYMENTS_SANDBOX: 'true' }).paymentsSandbox).toBe(
      true,
    );
    expect(problemsOf({ PUBLIC_URL: 'https://switchyard.example.com', STRIPE_SECRET_KEY: 'sk_test_abc' })).toEqual([]);
    // A local install keeps the sandbox without being asked: localhost, 127.0.0.1 and [::1] on any port.
    for (const url of ['http://localhost:3000', 'http://127.0.0.1:8080', 'http://[::1]:3000', 'https://localhost'])
      expect(problemsOf({ PUBLIC_URL: url })).toEqual([]);
    // Look-alikes of loopback are public.
    for (const url of ['http://localhost.example.com', 'http://127.0.0.1.nip.io:3000', 'http://10.0.0.5:3000'])
      expect(problemsOf({ PUBLIC_URL: url })).toHaveLength(1);
  });

  it('checks that MODELS_CONFIG names a readable file', () => {
    expect(problemsOf({ MODELS_CONFIG: '/nonexistent/models.yaml' })[0]).toContain('MODELS_CONFIG');
  });

  it('checks the mail settings (issue 33) and never echoes SMTP_URL, which holds a password', () => {
    expect(problemsOf({ SMTP_URL: 'smtp://mailer:secret@smtp.example.com:587' })).toEqual([]);
    expect(problemsOf({ SMTP_URL: 'smtps://smtp.example.com' })).toEqual([]);
    for (const raw of ['http://smtp.example.com', 'smtp.example.com:587', 'smtp://:secret@'])
      expect(problemsOf({ SMTP_URL: raw })).toEqual([
        'Invalid configuration: SMTP_URL must be smtp://user:password@host:587 or smtps://user:password@host:465, or unset',
      ]);
    expect(problemsOf({ MAIL_FROM: 'Switchyard <no-reply@example.com>' })).toEqual([]);
    expect(problemsOf({ MAIL_FROM: 'ops@example.com' })).toEqual([]);
    for (const raw of ['not an address', 'a@b.co\r\nBcc: x@y.z'])
      expect(problemsOf({ MAIL_FROM: raw })).toHaveLength(1);
    expect(problemsOf({ PASSWORD_RESET_TTL_MINUTES: '2' })).toHaveLength(1);
    expect(loadConfig({ REQUIRE_VERIFIED_EMAIL_FOR_TOPUP: 'yes' }).requireVerifiedEmailForTopUp).toBe(true);
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
