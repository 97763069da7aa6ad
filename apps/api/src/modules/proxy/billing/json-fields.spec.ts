import { setTopLevelFields } from './json-fields';

const set = (text: string, values: Record<string, number>, prefix: string | null = null) =>
  JSON.parse(setTopLevelFields(Buffer.from(text), values, prefix === null ? null : Buffer.from(prefix)).toString());

describe('setTopLevelFields', () => {
  it('replaces a top-level field in place and leaves nested ones of the same name alone', () => {
    const text =
      '{"model":"m","max_tokens":16000,"tools":[{"max_tokens":5,"s":"}\\"{"}],"messages":[{"max_tokens":7}]}';
    expect(set(text, { max_tokens: 100 })).toEqual({
      model: 'm',
      max_tokens: 100,
      tools: [{ max_tokens: 5, s: '}"{' }],
      messages: [{ max_tokens: 7 }],
    });
  });

  it('adds an absent field at the front, after a given prefix, and keeps the rest byte for byte', () => {
    const text = '{ "model" : "m",\n "messages": [] }';
    const out = setTopLevelFields(
      Buffer.from(text),
      { max_tokens: 9 },
      Buffer.from('"stream_options":{"include_usage":true}'),
    ).toString();
    expect(out).toBe('{"stream_options":{"include_usage":true},"max_tokens":9, "model" : "m",\n "messages": [] }');
    expect(set('{}', { a: 1 })).toEqual({ a: 1 });
    expect(set('{}', { a: 1 }, '"b":2')).toEqual({ a: 1, b: 2 });
  });

  it('catches every spelling of a key, so an escaped or repeated one cannot carry a higher limit past the gateway', () => {
    const text = '{"max\\u005ftokens":99999,"model":"m","max_tokens":null,"max_tokens" : 1e9}';
    const out = setTopLevelFields(Buffer.from(text), { max_tokens: 10 }).toString();
    expect(out).toBe('{"max\\u005ftokens":10,"model":"m","max_tokens":10,"max_tokens" : 10}');
  });

  it('agrees with JSON.parse on random objects', () => {
    let seed = 7;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const value = (depth: number): unknown => {
      const pick = random();
      if (depth > 3 || pick < 0.3) return Math.round(random() * 1000) / 10;
      if (pick < 0.5) return ['a', 'x"y', '{[', '\\', 'é', ''][Math.floor(random() * 6)];
      if (pick < 0.7) return Array.from({ length: Math.floor(random() * 3) }, () => value(depth + 1));
      if (pick < 0.8) return null;
      return Object.fromEntries(
        Array.from({ length: Math.floor(random() * 3) }, (_, i) => [`k${i}`, value(depth + 1)]),
      );
    };
    for (let round = 0; round < 300; round += 1) {
      const object = Object.fromEntries(
        Array.from({ length: 1 + Math.floor(random() * 4) }, (_, i) => [
          ['n', 'max_tokens', 'x', 'model'][i],
          value(0),
        ]),
      );
      const spaced = JSON.stringify(object, null, round % 3);
      expect(set(spaced, { max_tokens: 42, n: 1 })).toEqual({ ...object, max_tokens: 42, n: 1 });
    }
  });
});

describe('setTopLevelFields without a scan', () => {
  it('puts the members in front without reading the body through', () => {
    const text = '{"model":"m","messages":[{"role":"user","content":"max_tokens"}]}';
    expect(
      setTopLevelFields(
        Buffer.from(text),
        { max_tokens: 8 },
        Buffer.from('"stream_options":{"include_usage":true}'),
        false,
      ).toString(),
    ).toBe(
      '{"stream_options":{"include_usage":true},"max_tokens":8,"model":"m","messages":[{"role":"user","content":"max_tokens"}]}',
    );
  });
});
