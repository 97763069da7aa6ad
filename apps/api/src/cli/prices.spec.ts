import { buildCatalog } from '../modules/proxy';
import { pricesCommand } from './prices';

describe('npm run admin -- prices', () => {
  const catalog = buildCatalog(
    {
      providers: [
        { id: 'anthropic', type: 'anthropic', baseUrl: 'https://api.anthropic.com/v1', apiKey: 'k' },
        { id: 'local', type: 'openai', baseUrl: 'http://127.0.0.1:1/v1' },
      ],
      models: [
        {
          id: 'claude',
          provider: 'anthropic',
          upstreamModel: 'claude-sonnet-4-20250514',
          type: 'text',
          methods: ['chat_completions'],
          pricing: { outputPerMTok: 14 },
        },
        { id: 'local-free', provider: 'local', type: 'text', methods: ['chat_completions'], free: true },
        { id: 'local-unpriced', provider: 'local', type: 'text', methods: ['chat_completions', 'embeddings'] },
      ],
    },
    'test.yaml',
  );
  const run = (model?: string) => {
    const lines: string[] = [];
    const code = pricesCommand(catalog, model, (line) => lines.push(line));
    return { code, lines };
  };

  it('prints each model’s effective prices and where they came from, flags a model with no price, and exits 1 for it', () => {
    const { code, lines } = run();
    expect(code).toBe(1);
    expect(lines).toEqual([
      'claude  anthropic (anthropic) claude-sonnet-4-20250514  catalog anthropic/claude-sonnet-4-0, outputPerMTok from the config',
      '    inputPerMTok 3  outputPerMTok 14  cacheReadPerMTok 0.3  cacheWritePerMTok 3.75  cacheWrite1hPerMTok 6',
      'local-free  local (openai) local-free  free (config)',
      'local-unpriced  local (openai) local-unpriced  no price',
      '    NO PRICE for chat_completions, embeddings: those calls are refused; give it a pricing or free: true in MODELS_CONFIG (docs/pricing.md)',
    ]);
  });

  it('prints one model, exiting 0 when it is priced, 2 when there is no such model', () => {
    expect(run('claude').code).toBe(0);
    expect(run('local-free')).toEqual({ code: 0, lines: ['local-free  local (openai) local-free  free (config)'] });
    expect(run('nope').code).toBe(2);
  });
});

describe('npm run admin -- prices, a model with several deployments', () => {
  it('prints each deployment’s prices, and flags one without a price', () => {
    const catalog = buildCatalog(
      {
        providers: [
          { id: 'eu', type: 'openai', baseUrl: 'http://127.0.0.1:1/v1' },
          { id: 'us', type: 'openai', baseUrl: 'http://127.0.0.1:2/v1' },
        ],
        models: [
          {
            id: 'spread',
            type: 'text',
            methods: ['chat_completions'],
            pricing: { outputPerMTok: 4 },
            deployments: [
              { provider: 'eu', upstreamModel: 'x-eu', pricing: { inputPerMTok: 1 } },
              { provider: 'us', upstreamModel: 'x-us', pricing: { inputPerMTok: 2, outputPerMTok: 8 } },
            ],
          },
        ],
      },
      'test.yaml',
      () => null,
    );
    const lines: string[] = [];
    expect(pricesCommand(catalog, 'spread', (line) => lines.push(line))).toBe(0);
    expect(lines).toEqual([
      'spread  eu (openai) x-eu  config',
      '    inputPerMTok 1  outputPerMTok 4',
      '  also us (openai) x-us  config',
      '    inputPerMTok 2  outputPerMTok 8',
    ]);
    const unpriced = buildCatalog(
      {
        providers: [
          { id: 'eu', type: 'openai', baseUrl: 'http://127.0.0.1:1/v1' },
          { id: 'us', type: 'openai', baseUrl: 'http://127.0.0.1:2/v1' },
        ],
        models: [
          {
            id: 'half',
            type: 'text',
            methods: ['chat_completions'],
            deployments: [{ provider: 'eu', pricing: { inputPerMTok: 1 } }, { provider: 'us' }],
          },
        ],
      },
      'test.yaml',
      () => null,
    );
    const flagged: string[] = [];
    expect(pricesCommand(unpriced, undefined, (line) => flagged.push(line))).toBe(1);
    expect(flagged.slice(2)).toEqual([
      '  also us (openai) half  no price',
      '    NO PRICE for chat_completions: those calls are refused; give it a pricing or free: true in MODELS_CONFIG (docs/pricing.md)',
    ]);
  });
});
