import { spliceAnswer } from './answer-splice';

/** What the parse-and-stringify path gives: the reference the splice must equal. */
function reference(text: string, publicModel: string, cost: number): unknown {
  const body = JSON.parse(text);
  if (typeof body.model === 'string') body.model = publicModel;
  if (body.usage && typeof body.usage === 'object') body.usage.cost = cost;
  return body;
}

const answer = {
  id: 'chatcmpl-1',
  object: 'chat.completion',
  created: 1,
  model: 'gpt-upstream-2024',
  choices: [
    {
      index: 0,
      message: { role: 'assistant', content: 'He said \\"model\\":\\"x\\" and "usage":{} in text' },
      finish_reason: 'stop',
    },
  ],
  usage: { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 },
};

describe('spliceAnswer', () => {
  it('renames the model and writes usage.cost into a compact answer, equal to parse-and-stringify', () => {
    const text = JSON.stringify(answer);
    const out = spliceAnswer(text, JSON.parse(text), 'public-chat', 0.000021);
    expect(out).not.toBeNull();
    expect(JSON.parse(out!)).toEqual(reference(text, 'public-chat', 0.000021));
    expect(out).toContain('"model":"public-chat"');
  });

  it('leaves the model alone when the names agree, and handles an empty usage object', () => {
    const text = JSON.stringify({ ...answer, model: 'same', usage: {} });
    const out = spliceAnswer(text, JSON.parse(text), 'same', 0);
    expect(JSON.parse(out!)).toEqual(reference(text, 'same', 0));
  });

  it('answers without usage pass with only the model renamed', () => {
    const text = JSON.stringify({ object: 'list', model: 'up', data: [] });
    expect(JSON.parse(spliceAnswer(text, JSON.parse(text), 'pub', 1)!)).toEqual({
      object: 'list',
      model: 'pub',
      data: [],
    });
  });

  it('declines whatever is not unambiguous: spaced JSON, a second model or usage key, a cost already there', () => {
    const spaced = JSON.stringify(answer, null, 2);
    expect(spliceAnswer(spaced, JSON.parse(spaced), 'p', 1)).toBeNull();
    const nested = JSON.stringify({ ...answer, extra: { model: 'gpt-upstream-2024' } });
    expect(spliceAnswer(nested, JSON.parse(nested), 'p', 1)).toBeNull();
    const twoUsages = JSON.stringify({ ...answer, extra: { usage: { a: 1 } } });
    expect(spliceAnswer(twoUsages, JSON.parse(twoUsages), 'p', 1)).toBeNull();
    const costed = JSON.stringify({ ...answer, usage: { ...answer.usage, cost: 5 } });
    expect(spliceAnswer(costed, JSON.parse(costed), 'p', 1)).toBeNull();
    const escaped = '{"model":"gpt\\u002dx","usage":{"prompt_tokens":1}}';
    expect(spliceAnswer(escaped, JSON.parse(escaped), 'p', 1)).toBeNull();
  });
});
