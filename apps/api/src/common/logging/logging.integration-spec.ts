import { Logger, type LogLevel } from '@nestjs/common';
import { logLevels } from '../../app';
import { startTestApp, TestApp, uniqueEmail } from '../../../test/support/test-app';

describe('JSON logs (LOG_FORMAT=json)', () => {
  const lines: string[] = [];
  let app: TestApp;

  beforeAll(async () => {
    app = await startTestApp({ logFormat: 'json', logLevel: 'debug' }, undefined, {
      logger: logLevels('debug'),
      logWrite: (line: string, _level: LogLevel) => lines.push(line),
    });
  });
  afterAll(async () => {
    await app?.close();
    Logger.overrideLogger(false);
  });

  it('writes one JSON object per line with the response’s request id, and no secret of the call', async () => {
    const email = uniqueEmail('logs');
    const registered = await app.http('/api/v1/auth/register', { body: { email, password: 'log password 1' } });
    const session = registered.body.data.token as string;
    const created = await app.http('/api/v1/keys', { token: session, body: { name: 'logged' } });
    const key = created.body.data.key as string;
    const oauthish = `sya_${'Z'.repeat(43)}`;
    lines.length = 0;

    // The same email again: refused with 409.
    const taken = await app.http('/api/v1/auth/register', { body: { email, password: 'log password 1' } });
    const models = await app.http('/v1/models', { token: key });
    const refused = await app.http('/v1/models', { token: oauthish });
    const inUrl = await app.http(`/v1/models?api_key=${key}`, { token: key });
    const chat = await app.http('/v1/chat/completions', {
      token: key,
      body: { model: 'demo-chat', messages: [{ role: 'user', content: 'hi' }] },
    });
    expect([taken.status, models.status, refused.status, inUrl.status, chat.status]).toEqual([409, 200, 401, 400, 200]);
    await new Promise((resolve) => setTimeout(resolve, 50)); // access lines are written when the response ends

    const parsed = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    for (const entry of parsed) {
      expect(Object.keys(entry).slice(0, 4)).toEqual(['time', 'level', 'context', 'msg']);
      expect(new Date(entry.time as string).toISOString()).toBe(entry.time);
    }
    const accessOf = (res: { headers: Headers }) => {
      const id = res.headers.get('x-request-id');
      expect(id).toMatch(/^req_/);
      return parsed.filter((entry) => entry.context === 'HTTP' && entry.requestId === id);
    };
    expect(accessOf(models)).toEqual([
      expect.objectContaining({
        level: 'info',
        method: 'GET',
        path: '/v1/models',
        status: 200,
        principal: 'api_key',
        durationMs: expect.any(Number),
      }),
    ]);
    expect(accessOf(refused)).toEqual([expect.objectContaining({ status: 401 })]);
    expect(accessOf(inUrl)).toEqual([expect.objectContaining({ path: '/v1/models', status: 400 })]);
    expect(accessOf(chat)).toEqual([
      expect.objectContaining({ method: 'POST', path: '/v1/chat/completions', status: 200, principal: 'api_key' }),
    ]);
    expect(accessOf(taken)).toEqual([
      expect.objectContaining({ method: 'POST', path: '/api/v1/auth/register', status: 409 }),
    ]);

    const all = lines.join('\n');
    for (const secret of [key, key.slice(3), oauthish, session, 'log password 1']) expect(all).not.toContain(secret);
  });

  it('logs the principal kind of a dashboard session on management routes', async () => {
    const session = (
      await app.http('/api/v1/auth/register', { body: { email: uniqueEmail('logs'), password: 'log password 2' } })
    ).body.data.token;
    lines.length = 0;
    const me = await app.http('/api/v1/auth/me', { token: session });
    await new Promise((resolve) => setTimeout(resolve, 50));
    const access = lines
      .map((line) => JSON.parse(line))
      .find((entry) => entry.requestId === me.headers.get('x-request-id'));
    expect(access).toMatchObject({ context: 'HTTP', path: '/api/v1/auth/me', status: 200, principal: 'session' });
    expect(lines.join('\n')).not.toContain(session);
  });
});
