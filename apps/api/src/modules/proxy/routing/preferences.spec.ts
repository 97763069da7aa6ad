import { modelWith, PROVIDER_IDS } from '../../../../test/support/deployments';
import { estimateCall } from '../billing/budget-estimate';
import { servedBy } from '../catalog/deployments';
import { GatewayException } from '../errors/gateway.exception';
import { balance, type Candidate } from './balancer';
import { CLOSED } from './breaker';
import { IDLE } from './deployment-stats';
import {
  applyPreferences,
  NO_PREFERENCES,
  type ProviderPreferences,
  readPreferences,
  reservationDeployment,
  withinMaxPrice,
} from './preferences';

// p1 cheap, p2 dear, p3 mid; p4 exists in the catalog but serves another model.
const model = modelWith([
  { provider: 'p1', pricing: { inputPerMTok: 1, outputPerMTok: 2 } },
  { provider: 'p2', pricing: { inputPerMTok: 5, outputPerMTok: 15, perRequest: 0.01 } },
  { provider: 'p3', pricing: { inputPerMTok: 2, outputPerMTok: 8, tierAboveTokens: 100_000, inputAbovePerMTok: 4 } },
]);

function refusal(value: unknown): { status: number; code: string; param: string | undefined; message: string } {
  try {
    readPreferences(value, model, PROVIDER_IDS);
  } catch (error) {
    if (!(error instanceof GatewayException)) throw error;
    return { status: error.status, code: error.code, param: error.options.details?.[0].field, message: error.message };
  }
  throw new Error(`accepted ${JSON.stringify(value)}`);
}

describe('readPreferences', () => {
  it('reads OpenRouter’s provider object; absent or null means none', () => {
    expect(readPreferences(undefined, model, PROVIDER_IDS)).toBe(NO_PREFERENCES);
    expect(readPreferences(null, model, PROVIDER_IDS)).toBe(NO_PREFERENCES);
    expect(
      readPreferences(
        {
          order: ['p3', 'p1', 'p3'],
          ignore: ['p4'],
          sort: 'price',
          allow_fallbacks: false,
          max_price: { prompt: 3, completion: '10', request: 0.5, image: 0 },
        },
        model,
        PROVIDER_IDS,
      ),
    ).toEqual({
      order: ['p3', 'p1'],
      only: null,
      ignore: ['p4'],
      sort: 'price',
      allowFallbacks: false,
      maxPrice: { prompt: 3, completion: 10, request: 0.5, image: 0 },
    });
  });

  it('refuses a wrong type, an unknown field or provider with a 400 naming the field', () => {
    const cases: [unknown, string, RegExp][] = [
      ['openai', 'provider', /must be an object/],
      [['p1'], 'provider', /must be an object/],
      [{ order: 'p1' }, 'provider.order', /must be a list/],
      [
        { only: ['p1', 'nope'] },
        'provider.only[1]',
        /"nope" is not a provider of this gateway; m is served by p1, p2, p3/,
      ],
      [{ ignore: [7] }, 'provider.ignore[0]', /must be a provider name/],
      [{ order: Array(65).fill('p1') }, 'provider.order', /at most 64/],
      [{ sort: 'speed' }, 'provider.sort', /one of price, latency, throughput/],
      [{ sort: { by: 'price' } }, 'provider.sort', /one of price/],
      [{ allow_fallbacks: 'no' }, 'provider.allow_fallbacks', /true or false/],
      [{ data_collection: 'deny' }, 'provider.data_collection', /not supported by this gateway/],
      [{ max_price: 3 }, 'provider.max_price', /must be an object/],
      [{ max_price: { prompt: -1 } }, 'provider.max_price.prompt', /non-negative number/],
      [{ max_price: { completion: 'cheap' } }, 'provider.max_price.completion', /non-negative number/],
      [{ max_price: { prompt: Infinity } }, 'provider.max_price.prompt', /non-negative number/],
      [{ max_price: { audio: 1 } }, 'provider.max_price.audio', /use prompt, completion, request, image/],
    ];
    for (const [value, param, message] of cases) {
      const error = refusal(value);
      expect({ status: error.status, code: error.code, param: error.param }).toEqual({
        status: 400,
        code: 'INVALID_REQUEST',
        param,
      });
      expect(error.message).toMatch(message);
      expect(error.message.startsWith(param)).toBe(true);
    }
  });

  it('refuses impossible combinations: nothing left to serve the model, or lists that contradict', () => {
    expect(refusal({ only: ['p4'] })).toMatchObject({
      param: 'provider.only',
      message: expect.stringMatching(/names none of the providers of m/),
    });
    expect(refusal({ ignore: ['p1', 'p2', 'p3'] })).toMatchObject({ param: 'provider.ignore' });
    expect(refusal({ only: ['p1'], ignore: ['p1'] })).toMatchObject({
      param: 'provider.ignore',
      message: expect.stringMatching(/in provider.only/),
    });
    expect(refusal({ order: ['p2'], ignore: ['p2'] })).toMatchObject({
      param: 'provider.order[0]',
      message: expect.stringMatching(/also in provider.ignore/),
    });
    expect(refusal({ order: ['p1', 'p2'], only: ['p1'] })).toMatchObject({
      param: 'provider.order[1]',
      message: expect.stringMatching(/not in provider.only/),
    });
    expect(refusal({ order: ['p4'], allow_fallbacks: false })).toMatchObject({ param: 'provider.order' });
    expect(refusal({ max_price: { prompt: 0.5 } })).toMatchObject({ param: 'provider.max_price' });
    // Below p1 only, but p1 is ignored.
    expect(refusal({ max_price: { completion: 3 }, ignore: ['p1'] })).toMatchObject({ param: 'provider.max_price' });
    // The same preferences are fine where a deployment qualifies, and for a free model.
    expect(readPreferences({ max_price: { completion: 3 } }, model, PROVIDER_IDS).maxPrice).toEqual({ completion: 3 });
    const free = modelWith([{ provider: 'p1', pricing: undefined }], 'weighted', { free: true });
    expect(readPreferences({ max_price: { prompt: 0 } }, free, PROVIDER_IDS).maxPrice).toEqual({ prompt: 0 });
  });
});

describe('withinMaxPrice', () => {
  const [p1, p2, p3] = model.deployments;
  it('compares prompt with the input prices (long-context tier too), completion with the output, request and image', () => {
    expect(withinMaxPrice(p1, { prompt: 1, completion: 2 })).toBe(true);
    expect(withinMaxPrice(p1, { prompt: 0.99 })).toBe(false);
    expect(withinMaxPrice(p3, { prompt: 3 })).toBe(false); // 4 above 100k prompt tokens
    expect(withinMaxPrice(p3, { prompt: 4, completion: 8 })).toBe(true);
    expect(withinMaxPrice(p2, { request: 0.009 })).toBe(false);
    expect(withinMaxPrice(p1, { request: 0, image: 0 })).toBe(true); // prices it does not charge are 0
  });
});

describe('applyPreferences', () => {
  const candidates: Candidate[] = balance(
    model.deployments.map((deployment) => ({ deployment, load: IDLE, breaker: CLOSED })),
    {
      strategy: 'weighted',
      now: 0,
      random: () => 0.5,
    },
  ).candidates;
  const ids = (list: Candidate[]) => list.map((c) => c.deployment.provider.id);
  const prefs = (value: Record<string, unknown>): ProviderPreferences => readPreferences(value, model, PROVIDER_IDS);
  const load = () => IDLE;
  const apply = (value: Record<string, unknown>, list = candidates) =>
    ids(applyPreferences(list, prefs(value), { load }));

  it('filters by only, ignore and max_price, and keeps the balancer’s order', () => {
    const base = ids(candidates);
    expect(apply({})).toEqual(base);
    expect(apply({ only: ['p1', 'p3'] })).toEqual(base.filter((id) => id !== 'p2'));
    expect(apply({ ignore: ['p3'] })).toEqual(base.filter((id) => id !== 'p3'));
    expect(apply({ max_price: { completion: 10 } })).toEqual(base.filter((id) => id !== 'p2'));
  });

  it('order puts its providers first in its order; allow_fallbacks false keeps only those (or only the first)', () => {
    expect(apply({ order: ['p2', 'p3'] })).toEqual(['p2', 'p3', 'p1']);
    expect(apply({ order: ['p2', 'p3'], allow_fallbacks: false })).toEqual(['p2', 'p3']);
    expect(apply({ allow_fallbacks: false })).toEqual([ids(candidates)[0]]);
  });

  it('sort re-orders by price, latency (unmeasured first) or throughput (highest first)', () => {
    expect(apply({ sort: 'price' })).toEqual(['p1', 'p3', 'p2']);
    const loads: Record<string, Partial<typeof IDLE>> = {
      p1: { ttfbMs: 800, tokensPerSecond: 40 },
      p2: { ttfbMs: 200, tokensPerSecond: 90 },
      p3: { ttfbMs: 500, tokensPerSecond: null },
    };
    const byLoad = (sort: string) =>
      ids(applyPreferences(candidates, prefs({ sort }), { load: (d) => ({ ...IDLE, ...loads[d.provider.id] }) }));
    expect(byLoad('latency')).toEqual(['p2', 'p3', 'p1']);
    expect(byLoad('throughput')).toEqual(['p3', 'p2', 'p1']);
    // order still wins over sort.
    expect(ids(applyPreferences(candidates, prefs({ sort: 'price', order: ['p2'] }), { load }))).toEqual([
      'p2',
      'p1',
      'p3',
    ]);
  });
});

describe('reservationDeployment', () => {
  it('reserves at the deployment where this call could cost the most, for the deployments it may use', () => {
    const json = { model: 'm', messages: [{ role: 'user', content: 'hello '.repeat(50) }], max_tokens: 1000 };
    const worst = (d: (typeof model.deployments)[number]) =>
      estimateCall('chat_completions', servedBy(model, d), json, null).worstMicros;
    const all = model.deployments.map((deployment) => ({ deployment, probe: false }));
    expect(reservationDeployment(all, worst)?.provider.id).toBe('p2');
    expect(
      reservationDeployment(
        all.filter((c) => c.deployment.provider.id !== 'p2'),
        worst,
      )?.provider.id,
    ).toBe('p3');
    expect(reservationDeployment([], worst)).toBeNull();
    // What a reservation at p2 holds covers the call at any of them.
    const held = worst(model.deployments[1]);
    for (const d of model.deployments) expect(worst(d)).toBeLessThanOrEqual(held);
  });
});
