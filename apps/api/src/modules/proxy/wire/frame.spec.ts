import { Frame } from './frame';

describe('Frame', () => {
  it('parses its data once, on demand, for every part that reads it', () => {
    const frame = new Frame('{"choices":[],"usage":{"prompt_tokens":1}}');
    const parse = jest.spyOn(JSON, 'parse');
    try {
      expect(frame.parsed).toBe(false);
      const first = frame.json();
      expect(first).toEqual({ choices: [], usage: { prompt_tokens: 1 } });
      expect(frame.json()).toBe(first);
      expect(parse).toHaveBeenCalledTimes(1);
      expect(frame.parsed).toBe(true);
    } finally {
      parse.mockRestore();
    }
  });

  it('is null for data that is no JSON object ([DONE], a cut line, an array)', () => {
    expect(new Frame('[DONE]').json()).toBeNull();
    expect(new Frame('{"choices": [').json()).toBeNull();
    expect(new Frame('[1, 2]').json()).toBeNull();
  });

  it('made from a value, holds its text and its JSON; replaced, its text follows', () => {
    const frame = Frame.of({ a: 1 }, 'message_start');
    expect(frame.data).toBe('{"a":1}');
    expect(frame.event).toBe('message_start');
    expect(frame.parsed).toBe(true);
    const value = frame.json()!;
    value.a = 2;
    frame.replace(value);
    expect(frame.data).toBe('{"a":2}');
    expect(frame.json()).toBe(value);
  });
});
