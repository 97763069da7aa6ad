import { encodedTextProblem, jsonBodyProblem, MAX_JSON_DEPTH } from './input-hygiene';

const json = (text: string) => jsonBodyProblem(Buffer.from(text, 'utf8'));
const nested = (levels: number, open = '[', close = ']') => open.repeat(levels) + close.repeat(levels);

describe('the JSON body scan', () => {
  it('accepts ordinary bodies, escapes, paired surrogates and brackets inside strings', () => {
    for (const body of [
      '{"model":"demo-chat","messages":[{"role":"user","content":"Hi"}]}',
      '{"a":"\\"quoted\\" \\\\ back\\/slash \\n \\t \\u00e9 \\u0001"}',
      '{"emoji":"\\ud83d\\ude00","raw":"😀","mixed":"a\\uD83D\\uDE00b"}',
      `{"text":"${'['.repeat(10_000)}"}`,
      '{"k\\"[[[":"]]]\\\\"}',
      '"string only"',
      '',
      nested(MAX_JSON_DEPTH),
      `{"a":${nested(MAX_JSON_DEPTH - 1, '{"b":', '}')}}`,
    ])
      expect([body.slice(0, 40), json(body)]).toEqual([body.slice(0, 40), null]);
  });

  it('refuses nesting deeper than the limit, objects and arrays together, before anything parses it', () => {
    expect(json(nested(MAX_JSON_DEPTH + 1))).toBe('depth');
    expect(json(`{"a":${'{"b":'.repeat(MAX_JSON_DEPTH)}1${'}'.repeat(MAX_JSON_DEPTH)}}`)).toBe('depth');
    expect(json(nested(100_000))).toBe('depth');
    // Unbalanced (malformed) input is still bounded.
    expect(json('['.repeat(1_000_000))).toBe('depth');
  });

  it('refuses a NUL escape and a raw NUL', () => {
    expect(json('{"name":"a\\u0000b"}')).toBe('nul');
    expect(json('{"a\\u0000":1}')).toBe('nul');
    expect(json('{"a":1}\u0000')).toBe('nul');
  });

  it('refuses unpaired surrogate escapes, high or low', () => {
    for (const body of [
      '{"a":"\\ud800"}',
      '{"a":"\\uD800x"}',
      '{"a":"\\udc00"}',
      '{"a":"\\ud800\\u0041"}',
      '{"a":"\\ud800\\ud800"}',
      '{"a":"\\ude00\\ud83d"}',
    ])
      expect([body, json(body)]).toEqual([body, 'surrogate']);
  });

  it('refuses bytes that are not UTF-8 (a surrogate encoded as UTF-8, a stray continuation byte)', () => {
    expect(jsonBodyProblem(Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xed, 0xa0, 0x80, 0x22, 0x7d]))).toBe(
      'utf8',
    );
    expect(jsonBodyProblem(Buffer.from([0x22, 0xff, 0x22]))).toBe('utf8');
  });

  it('scans a 10 MB chat body in linear time (about 1 ms outside Jest)', () => {
    const body = Buffer.from(
      JSON.stringify({
        model: 'm',
        messages: Array.from({ length: 1000 }, (_, i) => ({
          role: 'user',
          content: `line ${i} "quoted" \\ ${'x'.repeat(10_000)}`,
        })),
      }),
    );
    const started = process.hrtime.bigint();
    expect(jsonBodyProblem(body)).toBeNull();
    expect(Number(process.hrtime.bigint() - started) / 1e6).toBeLessThan(1000);
  });
});

describe('the URL and form scan', () => {
  it('accepts ordinary paths, queries and forms', () => {
    for (const text of [
      '/v1/chat/completions',
      '/api/v1/usage/me/activity?limit=10&cursor=abc',
      '/s/ann/app?x=%C3%A9',
      '/u/%E2%9C%93',
      'grant_type=authorization_code&code=a%2Bb',
      '/x?100%',
      '/%zz',
    ])
      expect([text, encodedTextProblem(text)]).toEqual([text, null]);
  });

  it('refuses a NUL raw or %-encoded, and %-encoded bytes that are not UTF-8', () => {
    expect(encodedTextProblem('/api/v1/keys/%00')).toBe('nul');
    expect(encodedTextProblem('/v1/models?type=a%00b')).toBe('nul');
    expect(encodedTextProblem('grant_type=%00')).toBe('nul');
    expect(encodedTextProblem('/x\u0000')).toBe('nul');
    expect(encodedTextProblem('/api/v1/keys/%ff')).toBe('utf8');
    expect(encodedTextProblem('/v1/models/%ed%a0%80')).toBe('utf8');
    expect(encodedTextProblem('/v1/models/%C0%AF')).toBe('utf8');
    expect(encodedTextProblem('/raw/\u00ff')).toBe('utf8');
  });
});
