import { DemoProvider } from './demo-provider';
import { countTokens } from './tokenizer';

const provider = new DemoProvider({ chunkDelayMs: 0 });
const embed = async (json: unknown) => provider.handle({ method: 'embeddings', publicModel: 'demo-embed', json });
const vectors = async (json: unknown): Promise<number[][]> =>
  (((await (await embed(json)).json()) as any).data as Array<{ embedding: number[] }>).map((d) => d.embedding);

const norm = (v: number[]) => Math.sqrt(v.reduce((s, x) => s + x * x, 0));
const cosine = (a: number[], b: number[]) => a.reduce((s, x, i) => s + x * b[i], 0) / (norm(a) * norm(b));

describe('demo embeddings', () => {
  it('answers a list of unit-length 256-dimension vectors with usage', async () => {
    const response = await embed({ model: 'x', input: ['hello world', 'goodbye'] });
    expect(response.status).toBe(200);
    const body = (await response.json()) as any;
    expect(body).toMatchObject({ object: 'list', model: 'demo-embed', usage: { prompt_tokens: 3, total_tokens: 3 } });
    expect(body.data.map((d: any) => [d.object, d.index])).toEqual([
      ['embedding', 0],
      ['embedding', 1],
    ]);
    for (const d of body.data) {
      expect(d.embedding).toHaveLength(256);
      expect(norm(d.embedding)).toBeCloseTo(1, 5);
    }
  });

  it('is deterministic and float32-exact', async () => {
    const [a] = await vectors({ input: 'same text' });
    const [b] = await vectors({ input: 'same text' });
    expect(a).toEqual(b);
    for (const x of a) expect(Math.fround(x)).toBe(x);
  });

  it('encodes base64 as little-endian float32 bytes of the same vectors', async () => {
    const input = ['alpha beta', 'gamma'];
    const floats = await vectors({ input, encoding_format: 'float' });
    const body = (await (await embed({ input, encoding_format: 'base64' })).json()) as any;
    const decoded = body.data.map((d: any) => {
      const bytes = Buffer.from(d.embedding, 'base64');
      return Array.from(new Float32Array(bytes.buffer, bytes.byteOffset, bytes.length / 4));
    });
    expect(decoded).toEqual(floats);
  });

  it('honours dimensions with the normalised prefix of the full vector', async () => {
    const [full] = await vectors({ input: 'prefix test', dimensions: 3072 });
    const [short] = await vectors({ input: 'prefix test', dimensions: 8 });
    expect(full).toHaveLength(3072);
    expect(short).toHaveLength(8);
    const prefix = full.slice(0, 8);
    const scale = norm(prefix);
    short.forEach((x, i) => expect(x).toBeCloseTo(prefix[i] / scale, 5));
  });

  it('gives texts that share words a higher similarity', async () => {
    const [cat, cats, car] = await vectors({
      input: ['the cat sat on the mat', 'the cat sat on a mat', 'quantum chromodynamics lecture'],
    });
    expect(cosine(cat, cats)).toBeGreaterThan(0.6);
    expect(cosine(cat, car)).toBeLessThan(0.4);
  });

  it('accepts token arrays', async () => {
    const body = (await (
      await embed({
        input: [
          [1, 2, 3],
          [4, 5],
        ],
      })
    ).json()) as any;
    expect(body.data).toHaveLength(2);
    expect(body.usage.prompt_tokens).toBe(5);
  });

  it('counts prompt tokens with the demo tokenizer', async () => {
    const text = 'Embeddings, deterministic and offline!';
    const body = (await (await embed({ input: text })).json()) as any;
    expect(body.usage.prompt_tokens).toBe(countTokens(text));
  });

  it.each([
    ['input', 'missing', {}],
    ['input', 'an empty string', { input: '' }],
    ['input', 'an empty array', { input: [] }],
    ['input', 'an empty string in an array', { input: [''] }],
    ['input', 'a number', { input: 42 }],
    ['dimensions', 'zero', { input: 'x', dimensions: 0 }],
    ['dimensions', 'above 3072', { input: 'x', dimensions: 4000 }],
    ['encoding_format', 'unknown', { input: 'x', encoding_format: 'hex' }],
    ['input', 'over 8192 tokens', { input: 'word '.repeat(8193) }],
    ['input', 'over 300k tokens in all', { input: Array.from({ length: 40 }, () => 'word '.repeat(8000)) }],
  ])('rejects %s: %s', async (param, _why, json) => {
    const response = await embed(json);
    expect(response.status).toBe(400);
    expect(((await response.json()) as any).error).toMatchObject({ type: 'invalid_request_error', param });
  });
});
