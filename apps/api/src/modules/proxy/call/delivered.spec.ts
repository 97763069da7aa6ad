import { Delivered, MAY_CARRY_USAGE } from './delivered';

const chat = (content: string) =>
  JSON.stringify({ object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content } }], usage: null });

describe('Delivered', () => {
  it('reads the text of chat and completions chunks only when asked, in order', () => {
    const delivered = new Delivered(false);
    delivered.add(JSON.stringify({ choices: [{ index: 0, delta: { role: 'assistant', content: '' } }] }));
    delivered.add(chat('Hel'));
    delivered.add(JSON.stringify({ choices: [{ index: 0, text: 'lo' }] }));
    delivered.add('not json');
    delivered.add(JSON.stringify({ choices: [], usage: { prompt_tokens: 1, completion_tokens: 2 } }));
    expect(delivered.count).toBe(5);
    expect(delivered.text()).toBe('Hello');
  });

  it('reads only the text deltas of Responses API events', () => {
    const delivered = new Delivered(true);
    delivered.add(JSON.stringify({ type: 'response.created', response: { usage: null } }));
    delivered.add(JSON.stringify({ type: 'response.output_text.delta', delta: 'Hi' }));
    delivered.add(JSON.stringify({ type: 'response.output_text.done', text: 'Hi' }));
    expect(delivered.text()).toBe('Hi');
  });

  it('folds frames into their text past 256 KB, keeping every piece', () => {
    const delivered = new Delivered(false);
    const piece = 'x'.repeat(1000);
    for (let i = 0; i < 600; i += 1) delivered.add(chat(piece));
    expect(delivered.count).toBe(600);
    expect(delivered.text()).toBe(piece.repeat(600));
    delivered.add(chat('!'));
    expect(delivered.text()).toBe(`${piece.repeat(600)}!`);
  });
});

describe('MAY_CARRY_USAGE', () => {
  it("matches a usage object, in compact or spaced JSON, and not OpenAI's usage: null", () => {
    expect(MAY_CARRY_USAGE.test('{"choices":[],"usage":{"prompt_tokens":1}}')).toBe(true);
    expect(MAY_CARRY_USAGE.test('{"choices": [], "usage" : { "prompt_tokens": 1 }}')).toBe(true);
    expect(MAY_CARRY_USAGE.test(chat('hi'))).toBe(false);
  });
});
