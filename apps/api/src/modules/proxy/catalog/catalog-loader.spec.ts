import { buildCatalog, CatalogError, type PriceLookup, unpricedMethods } from './catalog-loader';
import { entryPricing } from './catalog.service';

const provider = { id: 'p', type: 'openai', baseUrl: 'http://127.0.0.1:1/v1' };
const chat = (id: string, extra: Record<string, unknown> = {}) => ({
  id,
  provider: 'p',
  type: 'text',
  methods: ['chat_completions'],
  ...extra,
});

function problemsOf(raw: unknown): string[] {
  try {
    buildCatalog(raw, 'test.yaml');
    return [];
  } catch (error) {
    return (error as CatalogError).problems;
  }
}

describe('buildCatalog', () => {
  it('keeps fallbacks in order, without repeats', () => {
    const catalog = buildCatalog(
      { providers: [provider], models: [chat('a', { fallbacks: ['b', 'c', 'b'] }), chat('b'), chat('c')] },
      'test.yaml',
    );
    expect(catalog.models.get('a')!.fallbacks).toEqual(['b', 'c']);
    expect(catalog.models.get('b')!.fallbacks).toEqual([]);
  });

  it('refuses a fallback that is not a model of the catalog, the model itself, or not a list — one line each', () => {
    expect(problemsOf({ providers: [provider], models: [chat('a', { fallbacks: ['nope'] })] })).toEqual([
      'MODELS_CONFIG test.yaml: models (a).fallbacks "nope" is not a model id in this catalog',
    ]);
    expect(problemsOf({ providers: [provider], models: [chat('a', { fallbacks: ['a'] })] })[0]).toMatch(
      /models\[0\]\.fallbacks must be a list of other model ids/,
    );
    expect(problemsOf({ providers: [provider], models: [chat('a', { fallbacks: 'b' }), chat('b')] })[0]).toMatch(
      /models\[0\]\.fallbacks/,
    );
  });

  it('names the field and the fix for a bad provider reference', () => {
    expect(problemsOf({ providers: [provider], models: [{ ...chat('a'), provider: 'q' }] })).toEqual([
      'MODELS_CONFIG test.yaml: models[0].provider "q" is not a provider id; use one of p',
    ]);
  });

  it('lower-cases provider headers, and refuses invalid ones and those the gateway sets per request', () => {
    const withHeaders = (headers: Record<string, string>) => ({
      providers: [{ ...provider, headers }],
      models: [chat('a')],
    });
    const catalog = buildCatalog(withHeaders({ 'OpenAI-Organization': 'org-1', 'X-Tenant': 't' }), 'test.yaml');
    expect(catalog.providers.get('p')!.headers).toEqual({ 'openai-organization': 'org-1', 'x-tenant': 't' });
    expect(problemsOf(withHeaders({ 'bad name': 'x' }))[0]).toMatch(
      /providers\[0\]\.headers\.bad name is not a valid HTTP header/,
    );
    expect(problemsOf(withHeaders({ 'x-ok': 'line\nbreak' }))[0]).toMatch(/headers\.x-ok is not a valid HTTP header/);
    expect(problemsOf(withHeaders({ 'Content-Length': '5' }))[0]).toMatch(
      /headers\.Content-Length is set by the gateway/,
    );
  });

  describe('prices', () => {
    // A catalog that knows one upstream model, with cache prices and a long-context tier.
    const lookup: PriceLookup = (kind, baseUrl, upstreamModel) =>
      upstreamModel === 'known'
        ? {
            pricing: {
              inputPerMTok: 3,
              outputPerMTok: 15,
              cacheReadPerMTok: 0.3,
              tierAboveTokens: 200_000,
              inputAbovePerMTok: 6,
              outputAbovePerMTok: 22.5,
            },
            entry: `${kind}/known`,
            changesAt: null,
          }
        : null;
    const build = (...models: Record<string, unknown>[]) =>
      buildCatalog({ providers: [provider], models }, 'test.yaml', lookup);

    it('takes the catalog’s prices for a model without pricing, and the config’s field by field over them', () => {
      const catalog = build(
        chat('a', { upstreamModel: 'known' }),
        chat('b', { upstreamModel: 'known', pricing: { outputPerMTok: 10, perRequest: 0.01 } }),
      );
      const a = catalog.models.get('a')!;
      expect(a.pricing).toEqual({
        inputPerMTok: 3,
        outputPerMTok: 15,
        cacheReadPerMTok: 0.3,
        tierAboveTokens: 200_000,
        inputAbovePerMTok: 6,
        outputAbovePerMTok: 22.5,
      });
      expect(entryPricing(a)).toEqual({ ...a.pricing, source: 'catalog', catalogModel: 'openai/known' });
      const b = catalog.models.get('b')!;
      expect(b.pricing).toMatchObject({ inputPerMTok: 3, outputPerMTok: 10, cacheReadPerMTok: 0.3, perRequest: 0.01 });
      expect(entryPricing(b)).toMatchObject({
        source: 'catalog',
        fromConfig: ['outputPerMTok', 'perRequest'],
        catalogModel: 'openai/known',
      });
    });

    it('says when a model has no price (its calls are refused) unless the config marks it free', () => {
      const catalog = build(
        chat('none'),
        chat('own', { pricing: { inputPerMTok: 1 } }),
        chat('free', { free: true, upstreamModel: 'known' }),
      );
      expect(unpricedMethods(catalog.models.get('none')!)).toEqual(['chat_completions']);
      expect(entryPricing(catalog.models.get('none')!)).toEqual({});
      expect(entryPricing(catalog.models.get('own')!)).toEqual({ inputPerMTok: 1, source: 'config' });
      // free takes nothing from the catalog, even for a model it knows
      expect(catalog.models.get('free')!.pricing).toEqual({});
      expect(unpricedMethods(catalog.models.get('free')!)).toEqual([]);
      expect(entryPricing(catalog.models.get('free')!)).toEqual({ source: 'config', free: true });
    });

    it('refuses free with pricing, a tier price without its threshold, and a bad threshold — one line each', () => {
      expect(
        problemsOf({ providers: [provider], models: [chat('a', { free: true, pricing: { inputPerMTok: 1 } })] })[0],
      ).toMatch(/models\[0\]\.free cannot go with pricing/);
      expect(
        problemsOf({ providers: [provider], models: [chat('a', { pricing: { inputAbovePerMTok: 6 } })] })[0],
      ).toMatch(/without tierAboveTokens/);
      expect(
        problemsOf({ providers: [provider], models: [chat('a', { pricing: { tierAboveTokens: 1.5 } })] })[0],
      ).toMatch(/tierAboveTokens must be a positive whole number/);
      expect(
        problemsOf({ providers: [provider], models: [chat('a', { pricing: { cacheWrite1hPerMTok: -1 } })] })[0],
      ).toMatch(/cacheWrite1hPerMTok must be a non-negative number/);
      expect(problemsOf({ providers: [provider], models: [chat('a', { free: 'yes' })] })[0]).toMatch(
        /models\[0\]\.free must be true or false/,
      );
    });
  });

  describe('paid provider-side features and image variants', () => {
    const anthropic = { id: 'an', type: 'anthropic', baseUrl: 'http://127.0.0.1:1/v1', apiKey: 'k' };
    const claude = (extra: Record<string, unknown>) => ({ ...chat('c', extra), provider: 'an' });
    const image = (perImage: unknown) => ({
      id: 'img',
      provider: 'p',
      type: 'image',
      methods: ['image_generation'],
      pricing: { perImage },
    });

    it('reads webSearch and documentUrls for an Anthropic model; every feature is off by default', () => {
      const catalog = buildCatalog(
        {
          providers: [provider, anthropic],
          models: [
            claude({
              contextLength: 200000,
              features: { webSearch: { perSearch: 0.01, maxUses: 5 }, documentUrls: true },
            }),
            chat('plain'),
          ],
        },
        'test.yaml',
      );
      expect(catalog.models.get('c')!.features).toEqual({
        webSearch: { perSearch: 0.01, maxUses: 5 },
        documentUrls: true,
      });
      expect(catalog.models.get('plain')!.features).toEqual({ webSearch: null, documentUrls: false });
    });

    it.each([
      [{ webSearch: { perSearch: 0.01 } }, /features\.webSearch must be \{ perSearch/],
      [{ webSearch: { perSearch: 0.01, maxUses: 500 } }, /webSearch\.maxUses must be a whole number from 1 to 100/],
      [{ webSearch: { perSearch: 0, maxUses: 5 } }, /perSearch must be above 0/],
      [{ documentUrls: 'yes' }, /documentUrls must be true or false/],
      [{ codeExecution: true }, /codeExecution is not a feature/],
      ['all', /features must map feature names/],
    ])('refuses features %j with one line naming the field', (features, problem) => {
      expect(problemsOf({ providers: [anthropic], models: [claude({ contextLength: 1000, features })] })[0]).toMatch(
        problem,
      );
    });

    it('refuses documentUrls without a context length, and any feature on a model that is not on an Anthropic provider', () => {
      expect(problemsOf({ providers: [anthropic], models: [claude({ features: { documentUrls: true } })] })[0]).toMatch(
        /documentUrls needs the model’s contextLength/,
      );
      expect(
        problemsOf({ providers: [provider], models: [chat('a', { features: { documentUrls: false } })] })[0],
      ).toMatch(/only models on an anthropic provider take it/);
    });

    it('takes perImage as a table by quality and size (the flat field then holds the dearest), or flat as before', () => {
      const table = { low: { '1024x1024': 0.011 }, high: { '1024x1024': 0.167, '1536x1024': 0.25 } };
      const catalog = buildCatalog({ providers: [provider], models: [image(table)] }, 'test.yaml');
      const model = catalog.models.get('img')!;
      expect(model.imagePrices).toEqual(table);
      expect(model.pricing.perImage).toBe(0.25);
      expect(unpricedMethods(model)).toEqual([]);
      const flat = buildCatalog({ providers: [provider], models: [image(0.04)] }, 'test.yaml').models.get('img')!;
      expect(flat).toMatchObject({ imagePrices: null, pricing: { perImage: 0.04 } });
      expect(problemsOf({ providers: [provider], models: [image({ high: { huge: 1 } })] })[0]).toMatch(
        /perImage\.high\.huge must be a size/,
      );
      expect(problemsOf({ providers: [provider], models: [image({ high: { '1024x1024': 0 } })] })[0]).toMatch(
        /must be a price above 0/,
      );
      expect(problemsOf({ providers: [provider], models: [image({ high: {} })] })[0]).toMatch(
        /perImage\.high must map/,
      );
    });
  });
});
