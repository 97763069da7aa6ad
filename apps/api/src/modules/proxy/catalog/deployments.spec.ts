import { join } from 'node:path';
import { buildCatalog, CatalogError, type PriceLookup, readCatalogFile } from './catalog-loader';
import { entryPricing } from './catalog.service';
import { servedBy } from './deployments';

const providers = [
  { id: 'openai-eu', type: 'openai', baseUrl: 'http://127.0.0.1:1/v1' },
  { id: 'azure-us', type: 'openai', baseUrl: 'http://127.0.0.1:2/v1' },
  { id: 'claude', type: 'anthropic', baseUrl: 'http://127.0.0.1:3/v1', apiKey: 'k-anthropic' },
];
// The price catalog knows gpt-x (at each provider kind) and nothing else.
const lookup: PriceLookup = (kind, _baseUrl, upstreamModel) =>
  upstreamModel === 'gpt-x'
    ? { pricing: { inputPerMTok: 1, outputPerMTok: 4, cacheReadPerMTok: 0.1 }, entry: `${kind}/gpt-x`, changesAt: null }
    : null;
const chat = (extra: Record<string, unknown>) => ({
  id: 'chat-large',
  type: 'text',
  methods: ['chat_completions'],
  ...extra,
});
const build = (...models: Record<string, unknown>[]) =>
  buildCatalog({ providers, models }, 'test.yaml', lookup, new Date('2026-01-01T00:00:00Z'));

function problemsOf(...models: Record<string, unknown>[]): string[] {
  try {
    build(...models);
    return [];
  } catch (error) {
    return (error as CatalogError).problems;
  }
}

describe('catalog deployments', () => {
  it('reads the shorthand (provider + upstreamModel) as one weighted deployment with the model’s prices', () => {
    const model = build(
      chat({ provider: 'openai-eu', upstreamModel: 'gpt-x', pricing: { outputPerMTok: 3 } }),
    ).models.get('chat-large')!;
    expect(model.routing).toBe('weighted');
    expect(model.deployments).toHaveLength(1);
    const [only] = model.deployments;
    expect(only).toMatchObject({ key: 'openai-eu/gpt-x', upstreamModel: 'gpt-x', weight: 1, rpm: null, tpm: null });
    expect(only.provider).toBe(model.provider);
    expect(only.pricing).toEqual({ inputPerMTok: 1, outputPerMTok: 3, cacheReadPerMTok: 0.1 });
    expect(model.pricing).toBe(only.pricing);
    expect(model.pricingOrigin).toEqual({
      source: 'catalog',
      fromConfig: ['outputPerMTok'],
      catalogModel: 'openai/gpt-x',
    });
    expect(servedBy(model, only)).toBe(model);
  });

  it('reads several deployments; the first is the primary that provider, upstreamModel and pricing describe', () => {
    const model = build(
      chat({
        routing: 'least-busy',
        pricing: { outputPerMTok: 5 },
        deployments: [
          { provider: 'openai-eu', upstreamModel: 'gpt-x', weight: 3 },
          {
            provider: 'azure-us',
            upstreamModel: 'gpt-x-azure',
            weight: 1,
            pricing: { inputPerMTok: 2, outputPerMTok: 8 },
            rpm: 600,
          },
          { provider: 'claude', upstreamModel: 'claude-x', weight: 0, tpm: 100000 },
        ],
      }),
    ).models.get('chat-large')!;
    expect(model.routing).toBe('least-busy');
    expect(model.deployments.map((d) => [d.key, d.weight, d.rpm, d.tpm])).toEqual([
      ['openai-eu/gpt-x', 3, null, null],
      ['azure-us/gpt-x-azure', 1, 600, null],
      ['claude/claude-x', 0, null, 100000],
    ]);
    const [primary, azure, claude] = model.deployments;
    expect(model.provider.id).toBe('openai-eu');
    expect(model.upstreamModel).toBe('gpt-x');
    // Its own prices over the model's over the catalog's (for its own provider and upstream model).
    expect(primary.pricing).toEqual({ inputPerMTok: 1, outputPerMTok: 5, cacheReadPerMTok: 0.1 });
    expect(azure.pricing).toEqual({ inputPerMTok: 2, outputPerMTok: 8 });
    expect(azure.pricingOrigin).toEqual({
      source: 'config',
      fromConfig: ['inputPerMTok', 'outputPerMTok'],
      catalogModel: null,
    });
    expect(claude.pricing).toEqual({ outputPerMTok: 5 });
    expect(model.pricing).toEqual(primary.pricing);
    // The model as the azure deployment serves it: the deployment's provider, upstream model and prices.
    const served = servedBy(model, azure);
    expect(served).toMatchObject({ id: 'chat-large', upstreamModel: 'gpt-x-azure', pricing: azure.pricing });
    expect(served.provider.id).toBe('azure-us');
    expect(entryPricing(served)).toEqual({ inputPerMTok: 2, outputPerMTok: 8, source: 'config' });
  });

  it('names the model and the field of every bad deployment, one line each', () => {
    const cases: [Record<string, unknown>, string][] = [
      [
        chat({ routing: 'round-robin', provider: 'openai-eu' }),
        'models[0].routing must be one of weighted, least-busy, latency, cheapest',
      ],
      [
        chat({ provider: 'openai-eu', deployments: [{ provider: 'azure-us' }] }),
        'models[0].deployments cannot go with provider',
      ],
      [chat({ deployments: [] }), 'models[0].deployments must be a list of 1 to 64'],
      [chat({ deployments: 'openai-eu' }), 'models[0].deployments must be a list'],
      [chat({ deployments: ['openai-eu'] }), 'models[0].deployments[0] must be a mapping'],
      [
        chat({ deployments: [{ provider: 'nope' }] }),
        'models[0].deployments[0].provider "nope" is not a provider id; use one of openai-eu, azure-us, claude',
      ],
      [
        chat({ deployments: [{ provider: 'openai-eu', wieght: 2 }] }),
        'models[0].deployments[0].wieght is not a deployment field',
      ],
      [
        chat({ deployments: [{ provider: 'openai-eu', upstreamModel: 7 }] }),
        'models[0].deployments[0].upstreamModel must be',
      ],
      [
        chat({ deployments: [{ provider: 'openai-eu', weight: -1 }] }),
        'models[0].deployments[0].weight must be a number from 0',
      ],
      [
        chat({ deployments: [{ provider: 'openai-eu', weight: '3' }] }),
        'models[0].deployments[0].weight must be a number',
      ],
      [chat({ deployments: [{ provider: 'openai-eu', weight: 0 }] }), 'models[0].deployments needs a weight above 0'],
      [
        chat({ deployments: [{ provider: 'openai-eu', rpm: 0 }] }),
        'models[0].deployments[0].rpm must be a positive whole number of requests',
      ],
      [
        chat({ deployments: [{ provider: 'openai-eu', tpm: 1.5 }] }),
        'models[0].deployments[0].tpm must be a positive whole number of tokens',
      ],
      [
        chat({ deployments: [{ provider: 'openai-eu', pricing: { inputPerMtok: 1 } }] }),
        'models[0].deployments[0].pricing.inputPerMtok is not a pricing field',
      ],
      [
        chat({ deployments: [{ provider: 'openai-eu', pricing: { outputPerMTok: -2 } }] }),
        'models[0].deployments[0].pricing.outputPerMTok must be a non-negative number',
      ],
      [
        chat({ deployments: [{ provider: 'openai-eu', pricing: { inputAbovePerMTok: 2 } }] }),
        'models[0].deployments[0].pricing has inputAbovePerMTok or outputAbovePerMTok without tierAboveTokens',
      ],
      [
        chat({
          deployments: [
            { provider: 'openai-eu', upstreamModel: 'a' },
            { provider: 'openai-eu', upstreamModel: 'a' },
          ],
        }),
        'models[0].deployments[1] repeats deployments[0] (openai-eu/a)',
      ],
      [
        chat({
          methods: ['chat_completions', 'embeddings'],
          type: 'text',
          deployments: [{ provider: 'openai-eu' }, { provider: 'claude' }],
        }),
        'models[0].deployments[1].provider claude (anthropic) serves chat_completions only',
      ],
      [
        chat({
          free: true,
          deployments: [{ provider: 'openai-eu' }, { provider: 'azure-us', pricing: { inputPerMTok: 1 } }],
        }),
        'models[0].deployments[1].pricing cannot go with free',
      ],
    ];
    for (const [model, expected] of cases) {
      const problems = problemsOf(model);
      expect(problems).toHaveLength(1);
      expect(problems[0]).toContain(`MODELS_CONFIG test.yaml: ${expected}`);
    }
  });

  it('takes nothing from the price catalog for a free model, on any deployment', () => {
    const model = build(
      chat({
        free: true,
        deployments: [
          { provider: 'openai-eu', upstreamModel: 'gpt-x' },
          { provider: 'azure-us', upstreamModel: 'gpt-x' },
        ],
      }),
    ).models.get('chat-large')!;
    expect(model.deployments.map((d) => d.pricing)).toEqual([{}, {}]);
    expect(model.free).toBe(true);
  });

  it('re-reads the catalog at the earliest price change of any deployment', () => {
    const dated: PriceLookup = (_kind, _base, upstreamModel) => ({
      pricing: { inputPerMTok: 1 },
      entry: `x/${upstreamModel}`,
      changesAt: new Date(upstreamModel === 'soon' ? '2026-02-01T00:00:00Z' : '2026-06-01T00:00:00Z'),
    });
    const catalog = buildCatalog(
      {
        providers,
        models: [
          chat({
            deployments: [
              { provider: 'openai-eu', upstreamModel: 'late' },
              { provider: 'azure-us', upstreamModel: 'soon' },
            ],
          }),
        ],
      },
      'test.yaml',
      dated,
      new Date('2026-01-01T00:00:00Z'),
    );
    expect(catalog.pricesChangeAt).toBe(Date.parse('2026-02-01T00:00:00Z'));
  });
});

describe('docs/models.example.yaml', () => {
  it('reads its model with deployments: the primary priced by the price catalog, the second by its own prices', () => {
    const env = { OPENAI_API_KEY: 'k', ANTHROPIC_API_KEY: 'k', GEMINI_API_KEY: 'k', AZURE_US_API_KEY: 'k' };
    const catalog = readCatalogFile(
      join(__dirname, '..', '..', '..', '..', '..', '..', 'docs', 'models.example.yaml'),
      env,
    );
    const model = catalog.models.get('gpt-4o-spread')!;
    expect(model.routing).toBe('weighted');
    expect(model.deployments.map((d) => [d.key, d.weight, d.rpm, d.tpm])).toEqual([
      ['openai/gpt-4o', 3, null, null],
      ['azure-us/gpt-4o', 1, 600, 1_000_000],
    ]);
    expect(model.deployments[0].pricingOrigin.source).toBe('catalog');
    expect(model.deployments[1].pricing).toMatchObject({ inputPerMTok: 2.75, outputPerMTok: 11 });
    expect(model.pricing).toBe(model.deployments[0].pricing);
  });
});
