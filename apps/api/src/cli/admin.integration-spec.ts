import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CALLBACK, freePort, OAuthTestKit } from '../../test/support/oauth-flow';
import { startTestApp } from '../../test/support/test-app';
import { createRestartableDatabase } from '../../test/support/test-database';
import { ClientsService } from '../modules/clients';
import { main, trustCommand } from './admin';

describe('npm run admin -- clients trust|untrust', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sy-admin-cli-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('refuses a malformed command before opening anything (exit 2)', async () => {
    const quiet = jest.spyOn(console, 'error').mockImplementation(() => undefined);
    try {
      for (const argv of [
        ['clients'],
        ['clients', 'trust'],
        ['clients', 'bless', 'syc_x'],
        ['clients', 'trust', 'syc_x', 'extra'],
      ])
        expect(await main(argv)).toBe(2);
      expect(quiet.mock.calls.join('\n')).toContain('npm run admin -- clients trust <client id>');
    } finally {
      quiet.mockRestore();
    }
  });

  it('trust makes an app first-party (its users skip the consent page), untrust asks again', async () => {
    const database = await createRestartableDatabase(dir);
    const saved = { DATABASE_URL: process.env.DATABASE_URL, DATA_DIR: process.env.DATA_DIR };
    const quiet = jest.spyOn(console, 'error').mockImplementation(() => undefined);
    try {
      const port = await freePort();
      const at = { port, publicUrl: `http://127.0.0.1:${port}`, signupCredit: 0 };
      let app = await startTestApp(at, database);
      let kit = await OAuthTestKit.start(app);
      const client = await kit.createClient({ clientName: 'Company CLI' });
      await app.close();

      // The command runs on the same database as the service, as an operator runs it with the service stopped.
      if (database.databaseUrl) process.env.DATABASE_URL = database.databaseUrl;
      process.env.DATA_DIR = database.dataDir;
      expect(await main(['clients', 'trust', client.clientId])).toBe(0);
      expect(quiet.mock.calls.flat().join('\n')).toContain('is trusted');
      expect(await main(['clients', 'trust', 'syc_nobody'])).toBe(1);

      app = await startTestApp(at, database);
      try {
        kit = await OAuthTestKit.start(app);
        const { challengePromise } = kit.pkce();
        const params = {
          client_id: client.clientId,
          response_type: 'code',
          redirect_uri: CALLBACK,
          scope: 'api:access',
          state: 'cli',
          code_challenge: await challengePromise,
          code_challenge_method: 'S256',
        };
        expect((await kit.authorize(params)).location).toMatch(/^http:\/\/127\.0\.0\.1:8765\/callback\?code=/);
        expect(await trustCommand(app.app.get(ClientsService), { trusted: false, clientId: client.clientId })).toBe(0);
        expect((await kit.authorize(params)).location).toMatch(/^\/consent\?/);
      } finally {
        await app.close();
      }
    } finally {
      quiet.mockRestore();
      process.env.DATABASE_URL = saved.DATABASE_URL;
      process.env.DATA_DIR = saved.DATA_DIR;
      if (saved.DATABASE_URL === undefined) delete process.env.DATABASE_URL;
      if (saved.DATA_DIR === undefined) delete process.env.DATA_DIR;
      await database.drop();
    }
    // Three CLI processes, each booting Nest on the database: slow on a loaded machine.
  }, 180_000);
});
