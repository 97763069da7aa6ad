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
