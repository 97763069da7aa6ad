import { randomBytes } from 'node:crypto';
import Redis from 'ioredis';
import { buildCatalog, DEMO_CATALOG, routingStore } from '../modules/proxy';
import { main } from './admin';
import { breakersCommand, breakersRequest } from './breakers';

const catalog = buildCatalog(
  {
    providers: [
      { id: 'eu', type: 'openai', baseUrl: 'http://127.0.0.1:1/v1' },
      { id: 'us', type: 'openai', baseUrl: 'http://127.0.0.1:2/v1' },
    ],
    models: [
      {
        id: 'chat',
        type: 'text',
        methods: ['chat_completions'],
        free: true,
        deployments: [
          { provider: 'eu', upstreamModel: 'gpt-x' },
          { provider: 'us', upstreamModel: 'gpt-x' },
        ],
      },
      {
        id: 'chat-eu',
        provider: 'eu',
        upstreamModel: 'gpt-x',
        type: 'text',
        methods: ['chat_completions'],
        free: true,
      },
    ],
  },
  'test.yaml',
);

describe('npm run admin -- breakers', () => {
  it('reads its arguments: list by default, open or close one deployment', () => {
    expect(breakersRequest([])).toEqual({ action: 'list' });
    expect(breakersRequest(['list'])).toEqual({ action: 'list' });
    expect(breakersRequest(['open', 'eu/gpt-x'])).toEqual({ action: 'open', deployment: 'eu/gpt-x' });
    expect(breakersRequest(['close', 'eu/gpt-x'])).toEqual({ action: 'close', deployment: 'eu/gpt-x' });
    expect(breakersRequest(['open'])).toMatch(/exactly one deployment/);
    expect(breakersRequest(['open', 'a', 'b'])).toMatch(/exactly one deployment/);
    expect(breakersRequest(['reset', 'a'])).toMatch(/unknown breakers action "reset"/);
    expect(breakersRequest(['list', 'x'])).toMatch(/takes no argument/);
  });

  it('lists every deployment with the models it serves, forces one open and closed, refuses an unknown one', async () => {
    let clock = Date.parse('2026-03-01T12:00:00Z');
    const store = routingStore(null, '', null, () => clock);
    const run = async (args: string[]) => {
      const lines: string[] = [];
      const request = breakersRequest(args);
      if (typeof request === 'string') throw new Error(request);
      const code = await breakersCommand(
        request,
        catalog,
        store,
        (line) => lines.push(line),
        () => clock,
      );
      return { code, lines };
    };
    expect(await run([])).toEqual({
      code: 0,
      lines: ['eu/gpt-x  closed  (chat, chat-eu)', 'us/gpt-x  closed  (chat)'],
    });
    for (let i = 0; i < 3; i += 1) await store.record('us/gpt-x', { kind: 'fault' });
    expect((await run(['list'])).lines[1]).toBe(
      'us/gpt-x  open until 2026-03-01T12:00:05.000Z (faults, opened 1× in a row)  (chat)',
    );
    clock += 5_000;
    expect((await run(['list'])).lines[1]).toMatch(/^us\/gpt-x {2}half-open: the next call probes it/);
    expect(await run(['open', 'eu/gpt-x'])).toEqual({
      code: 0,
      lines: ['eu/gpt-x  forced open: no calls until `breakers close`  (chat, chat-eu)'],
    });
    expect(store.breaker('eu/gpt-x').state).toBe('forced_open');
    expect((await run(['close', 'us/gpt-x'])).lines).toEqual(['us/gpt-x  closed  (chat)']);
    expect(store.breaker('us/gpt-x').state).toBe('closed');
    const unknown = await run(['open', 'eu/gpt-y']);
    expect(unknown.code).toBe(2);
    expect(unknown.lines[0]).toBe('no deployment eu/gpt-y in test.yaml; the deployments are eu/gpt-x, us/gpt-x');
  });

  describe('main', () => {
    const saved = { REDIS_URL: process.env.REDIS_URL, REDIS_PREFIX: process.env.REDIS_PREFIX };
    let output: jest.SpyInstance[] = [];
    beforeEach(() => {
      output = [
        jest.spyOn(console, 'error').mockImplementation(() => undefined),
        jest.spyOn(console, 'log').mockImplementation(() => undefined),
      ];
    });
    afterEach(() => {
      for (const spy of output) spy.mockRestore();
      for (const [name, value] of Object.entries(saved))
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
    });

    it('refuses a malformed command (exit 2) and, without REDIS_URL, says the breakers are out of its reach (exit 1)', async () => {
      expect(await main(['breakers', 'open'])).toBe(2);
      delete process.env.REDIS_URL;
      expect(await main(['breakers'])).toBe(1);
      expect(output[0].mock.calls.flat().join('\n')).toMatch(/without REDIS_URL each instance keeps its breakers/);
    });

    const withRedis = saved.REDIS_URL ? it : it.skip;
    withRedis('forces a breaker open for every instance through Redis (REDIS_URL), and closed again', async () => {
      const prefix = `sy-test-${randomBytes(4).toString('hex')}:`;
      process.env.REDIS_PREFIX = prefix;
      const redis = new Redis(saved.REDIS_URL!);
      try {
        // An instance of the service, on the demo catalog the command reads too (no MODELS_CONFIG).
        const instance = routingStore(redis, prefix, null);
        const key = buildCatalog(DEMO_CATALOG, 'demo').models.get('demo-chat')!.deployments[0].key;
        expect(await main(['breakers', 'open', key])).toBe(0);
        expect(await instance.read(key)).toMatchObject({ state: 'forced_open' });
        expect(await main(['breakers', 'list'])).toBe(0);
        expect(output[1].mock.calls.flat().join('\n')).toContain(`${key}  forced open`);
        expect(await main(['breakers', 'close', key])).toBe(0);
        expect(await instance.read(key)).toMatchObject({ state: 'closed' });
      } finally {
        const keys = await redis.keys(`${prefix}*`);
        if (keys.length) await redis.del(...keys);
        await redis.quit();
      }
    });
  });
});
