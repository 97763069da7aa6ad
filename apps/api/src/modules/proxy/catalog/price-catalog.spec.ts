import { join } from 'node:path';
import { findProvider } from '@pydantic/genai-prices';
import { tokenPrices } from '../billing/pricing';
import { readCatalogFile } from './catalog-loader';
import { catalogPrice, toPricing } from './price-catalog';

/** The bundled price catalog (@pydantic/genai-prices), read offline, as installed (docs/pricing.md). */
describe('the price catalog', () => {
  const realFetch = globalThis.fetch;
  const fetched: string[] = [];
  beforeAll(() => {
    globalThis.fetch = async (url: unknown) => {
      fetched.push(String(url));
      throw new Error('no network at run time');
    };
  });
  afterAll(() => {
    globalThis.fetch = realFetch;
    // Nothing is fetched: neither at load nor per lookup (the package's updatePrices is never called).
    expect(fetched).toEqual([]);
  });

  it('prices Anthropic models with cache reads, five-minute and one-hour writes, matched by the upstream id', () => {
    const found = catalogPrice('anthropic', 'https://api.anthropic.com/v1', 'claude-sonnet-4-20250514')!;
    expect(found.entry).toBe('anthropic/claude-sonnet-4-0');
    expect(found.pricing).toEqual({
      inputPerMTok: 3,
      outputPerMTok: 15,
      cacheReadPerMTok: 0.3,
      cacheWritePerMTok: 3.75,
      cacheWrite1hPerMTok: 6,
    });
  });

  it('takes a long-context tier as the threshold and the Above prices', () => {
    const found = catalogPrice('gemini', null, 'gemini-2.5-pro')!;
    expect(found.entry).toBe('google/gemini-2.5-pro');
    expect(found.pricing).toEqual({
      inputPerMTok: 1.25,
      outputPerMTok: 10,
      cacheReadPerMTok: 0.125,
      tierAboveTokens: 200_000,
      inputAbovePerMTok: 2.5,
      outputAbovePerMTok: 15,
    });
  });

  it('looks an OpenAI-compatible server up by its URL first, then as OpenAI', () => {
    expect(catalogPrice('openai', 'https://api.groq.com/openai/v1', 'llama-3.1-8b-instant')!.entry).toBe(
      'groq/llama-3.1-8b-instant',
    );
    expect(catalogPrice('openai', 'http://127.0.0.1:11434/v1', 'gpt-4o-mini')!.pricing).toMatchObject({
      inputPerMTok: 0.15,
      outputPerMTok: 0.6,
      cacheReadPerMTok: 0.075,
    });
    expect(catalogPrice('openai', 'http://127.0.0.1:11434/v1', 'llama3.1:8b')).toBeNull();
    expect(catalogPrice('demo', null, 'gpt-4o-mini')).toBeNull();
  });

  it('follows a time-of-day tariff and says when it changes next', () => {
    const peak = catalogPrice(
      'openai',
      'https://api.deepseek.com/v1',
      'deepseek-chat',
      new Date('2026-11-02T08:00:00Z'),
    );
    const offPeak = catalogPrice(
      'openai',
      'https://api.deepseek.com/v1',
      'deepseek-chat',
      new Date('2026-11-02T20:00:00Z'),
    );
    if (!peak || !offPeak) return; // the catalog dropped the tariff: nothing to follow
    expect(peak.pricing.inputPerMTok).not.toBe(offPeak.pricing.inputPerMTok);
    expect(peak.changesAt!.getTime()).toBeGreaterThan(Date.parse('2026-11-02T08:00:00Z'));
    expect(peak.changesAt!.getTime()).toBeLessThanOrEqual(Date.parse('2026-11-03T08:00:00Z'));
  });

  it('maps requests per thousand and audio hours', () => {
    expect(toPricing({ requests_kcount: 5, audio_hours: 0.36 })).toEqual({ perRequest: 0.005, perSecond: 0.0001 });
  });

  it('prices every tiered cache price of the OpenAI, Anthropic and Google entries as the scaling rule does', () => {
    let checked = 0;
    for (const id of ['openai', 'anthropic', 'google'])
      for (const model of findProvider({ providerId: id })!.models)
        for (const { prices } of Array.isArray(model.prices) ? model.prices : [{ prices: model.prices }]) {
          const pricing = toPricing(prices);
          if (pricing.tierAboveTokens === undefined) continue;
          const above = tokenPrices(pricing, pricing.tierAboveTokens + 1);
          for (const [key, field] of [
            ['cache_read_mtok', 'cacheRead'],
            ['cache_write_mtok', 'cacheWrite'],
            ['cache_write_1h_mtok', 'cacheWrite1h'],
          ] as const) {
            const value = prices[key];
            if (typeof value !== 'object' || !value) continue;
            const highest = Math.max(...value.tiers.map((tier) => tier.price));
            expect({ model: model.id, key, price: above[field] }).toEqual({
              model: model.id,
              key,
              price: expect.closeTo(highest, 9),
            });
            checked += 1;
          }
        }
    expect(checked).toBeGreaterThan(0);
  });

  it('fills the example config’s prices: every priced method of every model has a price, from the catalog where the config gives none', () => {
    const env = { OPENAI_API_KEY: 'k', ANTHROPIC_API_KEY: 'k', GEMINI_API_KEY: 'k', AZURE_US_API_KEY: 'k' };
    const catalog = readCatalogFile(
      join(__dirname, '..', '..', '..', '..', '..', '..', 'docs', 'models.example.yaml'),
      env,
    );
    const fromCatalog = [...catalog.models.values()].filter((model) => model.pricingOrigin.source === 'catalog');
    expect(fromCatalog.map((model) => model.id)).toEqual(
      expect.arrayContaining(['gpt-4o-mini', 'claude-sonnet', 'gemini-flash']),
    );
    for (const model of fromCatalog.filter((entry) => !entry.pricingOrigin.fromConfig.length)) {
      expect(model.pricing.inputPerMTok).toBeGreaterThan(0);
      if (model.type === 'text') expect(model.pricing.outputPerMTok).toBeGreaterThan(0);
    }
    expect(catalog.models.get('claude-sonnet')!.pricing).toMatchObject({
      cacheWritePerMTok: 3.75,
      cacheWrite1hPerMTok: 6,
    });
    expect(catalog.models.get('llama3')!.free).toBe(true);
  });
});
