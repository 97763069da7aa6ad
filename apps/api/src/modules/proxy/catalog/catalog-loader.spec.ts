import { buildCatalog, CatalogError } from './catalog-loader';

const provider = { id: 'p', type: 'openai', baseUrl: 'http://127.0.0.1:1/v1' };
const chat = (id: string, extra: Record<string, unknown> = {}) => ({ id, provider: 'p', type: 'text', methods: ['chat_completions'], ...extra });

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
    const catalog = buildCatalog({ providers: [provider], models: [chat('a', { fallbacks: ['b', 'c', 'b'] }), chat('b'), chat('c')] }, 'test.yaml');
    expect(catalog.models.get('a')!.fallbacks).toEqual(['b', 'c']);
    expect(catalog.models.get('b')!.fallbacks).toEqual([]);
  });

  it('refuses a fallback that is not a model of the catalog, the model itself, or not a list — one line each', () => {
    expect(problemsOf({ providers: [provider], models: [chat('a', { fallbacks: ['nope'] })] })).toEqual([
      'MODELS_CONFIG test.yaml: models (a).fallbacks "nope" is not a model id in this catalog',
    ]);
    expect(problemsOf({ providers: [provider], models: [chat('a', { fallbacks: ['a'] })] })[0]).toMatch(/models\[0\]\.fallbacks must be a list of other model ids/);
    expect(problemsOf({ providers: [provider], models: [chat('a', { fallbacks: 'b' }), chat('b')] })[0]).toMatch(/models\[0\]\.fallbacks/);
  });

  it('names the field and the fix for a bad provider reference', () => {
    expect(problemsOf({ providers: [provider], models: [{ ...chat('a'), provider: 'q' }] })).toEqual([
      'MODELS_CONFIG test.yaml: models[0].provider "q" is not a provider id; use one of p',
    ]);
  });

  it('lower-cases provider headers, and refuses invalid ones and those the gateway sets per request', () => {
    const withHeaders = (headers: Record<string, string>) => ({ providers: [{ ...provider, headers }], models: [chat('a')] });
    const catalog = buildCatalog(withHeaders({ 'OpenAI-Organization': 'org-1', 'X-Tenant': 't' }), 'test.yaml');
    expect(catalog.providers.get('p')!.headers).toEqual({ 'openai-organization': 'org-1', 'x-tenant': 't' });
    expect(problemsOf(withHeaders({ 'bad name': 'x' }))[0]).toMatch(/providers\[0\]\.headers\.bad name is not a valid HTTP header/);
    expect(problemsOf(withHeaders({ 'x-ok': 'line\nbreak' }))[0]).toMatch(/headers\.x-ok is not a valid HTTP header/);
    expect(problemsOf(withHeaders({ 'Content-Length': '5' }))[0]).toMatch(/headers\.Content-Length is set by the gateway/);
  });
});
