import { PIECE, startUsageUpstream } from './support/fake-usage-upstream';
import { micros, moneySuite } from './support/money-suite';
import { startTestApp, TestApp } from './support/test-app';

/**
 * The money-attack suite, continued (docs/budgets.md): usage as it arrives, and honest refusals. Every partial
 * usage a provider reports is billed the moment it arrives, whatever way the call ends; a caller whose previous
 * call has answered is never refused for that call's hold. The providers speak Anthropic's, Gemini's and OpenAI's
 * real wire formats (support/fake-usage-upstream.ts).
 */
const CLAUDE = {
  inputPerMTok: 3,
  outputPerMTok: 15,
  cacheReadPerMTok: 0.3,
  cacheWritePerMTok: 3.75,
  cacheWrite1hPerMTok: 6,
};
const chat = (id: string, provider: string, upstreamModel: string, extra: object = {}) => ({
  id,
  provider,
  upstreamModel,
  type: 'text',
  methods: provider === 'openai' ? ['chat_completions', 'responses'] : ['chat_completions'],
  maxOutputTokens: 1000,
  contextLength: 100_000,
  pricing: CLAUDE,
  ...extra,
});
const BIG = 2_000_000;

describe('money attacks: usage as it arrives, honest refusals', () => {
  const twoInstances = Boolean(process.env.DATABASE_URL);
  let upstream: Awaited<ReturnType<typeof startUsageUpstream>>;
  let apps: TestApp[] = [];
  const suite = moneySuite(() => apps);

  beforeAll(async () => {
    upstream = await startUsageUpstream(() => [
      chat('claude-big', 'anthropic', `u-i${BIG}-p5-stall`),
      chat('claude-cache', 'anthropic', 'u-i10-r1000000-w400000-h200000-p3-stall'),
      chat('claude-cut', 'anthropic', `u-i${BIG}-p5-cut`),
      chat('gemini-big', 'gemini', `u-i${BIG}-p5-stall`),
      chat('openai-big', 'openai', `u-i${BIG}-p5-stall`),
      chat('openai-blind', 'openai', 'u-p1-blind'),
      // 124 tokens at 0.01: 1.24 a call; held: its input bound (about 180 tokens) and 21 output tokens.
      chat('per-call', 'openai', 'u-i100-o24', { pricing: { inputPerMTok: 10_000, outputPerMTok: 10_000 } }),
    ]);
    const first = await startTestApp({ signupCredit: 0, modelsConfig: upstream.catalogPath });
    apps = [first];
    if (twoInstances)
      apps.push(
        await startTestApp(
          { signupCredit: 0, modelsConfig: upstream.catalogPath, redisPrefix: first.config.redisPrefix },
          first.testDatabase,
        ),
      );
  });
  afterAll(async () => {
    for (const running of apps.slice(1)) await running.close();
    await apps[0]?.close();
    await upstream?.close();
  });

  const ask = [{ role: 'user', content: 'How much is this?' }];
  const messagesHeaders = { 'anthropic-version': '2023-06-01' };

  /** A call billed at price × what the provider reported and what was relayed after it, and the books agree. */
  async function billedAsReported(userId: string, callId: string, input: number) {
    const record = await suite.recordOf(callId);
    expect(record.promptTokens).toBe(input);
    // Whatever the provider reported of the output, and the pieces relayed after it (a token each): at least 5.
    expect(record.completionTokens).toBeGreaterThanOrEqual(5);
    expect(record.cost).toBe(input * CLAUDE.inputPerMTok + record.completionTokens * CLAUDE.outputPerMTok);
    const books = await suite.money(userId);
    expect(books).toMatchObject({
      debits: record.cost,
      ledgerDebits: record.cost,
      recordCost: record.cost,
      reserved: 0,
    });
    await suite.noDrift(userId);
    return record;
  }

  describe('usage as it arrives', () => {
    it("bills message_start's input when the client leaves before message_delta (native /v1/messages)", async () => {
      const user = await suite.newUser(100_000_000);
      const { callId } = await suite.hangUpAfter(
        user.key,
        '/v1/messages',
        { model: 'claude-big', max_tokens: 100, messages: ask },
        'text_delta',
        5,
        messagesHeaders,
      );
      const record = await billedAsReported(user.userId, callId, BIG);
      expect(record.status).toBe('client_closed');
    });

    it("bills message_start's input when the client leaves before message_delta (chat completions → Anthropic)", async () => {
      const user = await suite.newUser(100_000_000);
      const { callId } = await suite.hangUpAfter(
        user.key,
        '/v1/chat/completions',
        { model: 'claude-big', messages: ask },
        PIECE,
        5,
      );
      await billedAsReported(user.userId, callId, BIG);
    });

    it("bills message_start's cache reads and five-minute and one-hour cache writes when the client leaves early", async () => {
      const user = await suite.newUser(100_000_000);
      const { callId } = await suite.hangUpAfter(
        user.key,
        '/v1/messages',
        { model: 'claude-cache', max_tokens: 100, messages: ask },
        'text_delta',
        3,
        messagesHeaders,
      );
      const record = await suite.recordOf(callId);
      expect(record).toMatchObject({
        cacheReadTokens: 1_000_000,
        cacheWriteTokens: 400_000,
        cacheWrite1hTokens: 200_000,
      });
      expect(record.cost).toBe(
        Math.ceil(
          10 * CLAUDE.inputPerMTok +
            1_000_000 * CLAUDE.cacheReadPerMTok +
            400_000 * CLAUDE.cacheWritePerMTok +
            200_000 * CLAUDE.cacheWrite1hPerMTok +
            record.completionTokens * CLAUDE.outputPerMTok,
        ),
      );
      await suite.noDrift(user.userId);
    });

    it("bills Gemini's usage metadata of the chunks relayed when the client leaves before the last one", async () => {
      const user = await suite.newUser(100_000_000);
      const { callId } = await suite.hangUpAfter(
        user.key,
        '/v1/chat/completions',
        { model: 'gemini-big', messages: ask },
        PIECE,
        5,
      );
      await billedAsReported(user.userId, callId, BIG);
    });

    it('bills every usage chunk of an OpenAI-compatible stream as it arrives, not the first one above the hold', async () => {
      const user = await suite.newUser(100_000_000);
      const { callId } = await suite.hangUpAfter(
        user.key,
        '/v1/chat/completions',
        { model: 'openai-big', messages: ask },
        PIECE,
        5,
      );
      await billedAsReported(user.userId, callId, BIG);
    });

    it("bills the usage of a Responses stream's response.created and in_progress when the client leaves before it completes", async () => {
      const user = await suite.newUser(100_000_000);
      const { callId } = await suite.hangUpAfter(
        user.key,
        '/v1/responses',
        { model: 'openai-big', input: 'How much?' },
        PIECE,
        5,
      );
      await billedAsReported(user.userId, callId, BIG);
    });

    it('bills usage chunks of an OpenAI-compatible model behind /v1/messages when the client leaves early', async () => {
      const user = await suite.newUser(100_000_000);
      const { callId } = await suite.hangUpAfter(
        user.key,
        '/v1/messages',
        { model: 'openai-big', max_tokens: 100, messages: ask },
        'text_delta',
        5,
        messagesHeaders,
      );
      await billedAsReported(user.userId, callId, BIG);
    });

    it("bills message_start's input when the provider cuts the stream before message_delta", async () => {
      const user = await suite.newUser(100_000_000);
      const res = await fetch(`${apps[0].url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${user.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'claude-cut', stream: true, messages: ask }),
      });
      const text = await res.text();
      expect(text).toContain('"error"');
      const record = await billedAsReported(user.userId, res.headers.get('x-switchyard-call-id')!, BIG);
      expect(record.status).toBe('upstream_error');
    });

    it.each([
      [
        'a file part',
        '/v1/chat/completions',
        {
          messages: [
            {
              role: 'user',
              content: [
                { type: 'text', text: 'Summarise this.' },
                { type: 'file', file: { filename: 'a.pdf', file_data: 'data:application/pdf;base64,JVBERi0xLjQK' } },
              ],
            },
          ],
        },
      ],
      [
        'a non-image data URL',
        '/v1/chat/completions',
        { messages: [{ role: 'user', content: [{ type: 'text', text: 'data:text/plain;base64,aGVsbG8=' }] }] },
      ],
      ['previous_response_id', '/v1/responses', { input: 'And then?', previous_response_id: 'resp_earlier' }],
    ])(
      'bills %s at the context length it reserved when the client leaves before any usage',
      async (_what, path, body) => {
        const user = await suite.newUser(100_000_000);
        const { callId } = await suite.hangUpAfter(user.key, path, { model: 'openai-blind', ...body }, PIECE, 1);
        const record = await suite.recordOf(callId);
        expect(record.status).toBe('client_closed');
        expect(record.promptTokens).toBeGreaterThanOrEqual(100_000);
        expect(record.cost).toBe(
          record.promptTokens * CLAUDE.inputPerMTok + record.completionTokens * CLAUDE.outputPerMTok,
        );
        await suite.noDrift(user.userId);
      },
    );
  });

  describe('honest refusals', () => {
    /**
     * One call of 1.24 that holds about 2.00 while it runs, and needs about 1.80 to be served at all: with the
     * previous call's hold still counted, the fourth would not fit (3.52 − 2.00 < 1.80).
     */
    const call = (key: string, on: TestApp) =>
      on.http('/v1/chat/completions', {
        token: key,
        body: { model: 'per-call', max_tokens: 21, messages: [{ role: 'user', content: 'x'.repeat(160) }] },
      });
    const summary = async (session: string) =>
      (await apps[0].http('/api/v1/usage/me/summary', { token: session })).body.data as {
        remainingBudget: number;
      };

    it('serves a sequential caller every call its budget covers: budget 6, calls of 1.24, the fourth passes', async () => {
      const users = await Promise.all(Array.from({ length: 4 }, () => suite.newUser(6_000_000)));
      await Promise.all(
        users.map(async (user) => {
          for (let i = 0; i < 4; i += 1) {
            const res = await call(user.key, apps[i % apps.length]);
            expect([i, res.status, res.body.error?.remainingBudget]).toEqual([i, 200, undefined]);
            expect(micros(res.body.usage.cost)).toBe(1_240_000);
          }
          const refused = await call(user.key, apps[0]);
          expect(refused.status).toBe(403);
          expect(refused.body.error.code).toBe('budget_exhausted');
          // What the summary shows: 6 − 4 × 1.24.
          expect(refused.body.error.remainingBudget).toBe(1.04);
          expect((await summary(user.session)).remainingBudget).toBe(1.04);
        }),
      );
      for (const user of users)
        expect(await suite.money(user.userId)).toMatchObject({ debits: 4_960_000, reserved: 0 });
      await suite.noDrift();
    });

    it('serves every affordable call under light concurrency, and refuses with the figure the summary shows', async () => {
      const user = await suite.newUser(6_000_000);
      let served = 0;
      const refusals: number[] = [];
      await Promise.all(
        [0, 1, 2].map(async (worker) => {
          for (;;) {
            const res = await call(user.key, apps[worker % apps.length]);
            if (res.status !== 200) {
              expect(res.status).toBe(403);
              refusals.push(res.body.error.remainingBudget);
              return;
            }
            served += 1;
          }
        }),
      );
      expect(served).toBe(4);
      // Every refusal came once every affordable call was served or held: what is left is the summary's figure.
      const last = await call(user.key, apps[0]);
      expect(last.body.error.remainingBudget).toBe((await summary(user.session)).remainingBudget);
      expect(last.body.error.remainingBudget).toBe(1.04);
      expect(refusals.every((remaining) => remaining >= 1.04)).toBe(true);
      await suite.noDrift(user.userId);
    });
  });
});
