import { applyChatEvent, EMPTY_CHAT_STREAM, SseDecoder, StreamError } from './sse';

describe('SseDecoder', () => {
  it('splits events on blank lines, across chunk boundaries and line-end styles', () => {
    const decoder = new SseDecoder();
    expect(decoder.push('data: {"a":1}\n\nda')).toEqual(['{"a":1}']);
    expect(decoder.push('ta: two\r\n\r\n: a comment\n')).toEqual(['two']);
    expect(decoder.push('event: x\ndata: first\ndata: second\n\n')).toEqual(['first\nsecond']);
    expect(decoder.push('data: [DONE]\r')).toEqual([]);
    expect(decoder.push('\r')).toEqual([]);
    expect(decoder.end()).toEqual(['[DONE]']);
  });

  it('keeps a last event that lacks its blank line', () => {
    const decoder = new SseDecoder();
    expect(decoder.push('data: tail')).toEqual([]);
    expect(decoder.end()).toEqual(['tail']);
  });
});

describe('applyChatEvent', () => {
  const chunk = (body: object) => JSON.stringify(body);

  it('adds the first choice’s text, then the finish reason, the usage with its cost, and [DONE]', () => {
    let state = applyChatEvent(
      EMPTY_CHAT_STREAM,
      chunk({ choices: [{ index: 0, delta: { role: 'assistant', content: '' } }] }),
    );
    state = applyChatEvent(state, chunk({ choices: [{ index: 0, delta: { content: 'Hello' } }] }));
    state = applyChatEvent(
      state,
      chunk({
        choices: [
          { index: 1, delta: { content: 'other choice' } },
          { index: 0, delta: { content: ', world' } },
        ],
      }),
    );
    state = applyChatEvent(state, chunk({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }));
    state = applyChatEvent(
      state,
      chunk({ choices: [], usage: { prompt_tokens: 2, completion_tokens: 3, total_tokens: 5, cost: 0.000014 } }),
    );
    expect(state).toEqual({
      content: 'Hello, world',
      finishReason: 'stop',
      usage: { promptTokens: 2, completionTokens: 3, totalTokens: 5, cost: 0.000014 },
      done: false,
    });
    expect(applyChatEvent(state, '[DONE]').done).toBe(true);
  });

  it('ignores data that is not JSON, and throws an error sent inside the stream', () => {
    expect(applyChatEvent(EMPTY_CHAT_STREAM, 'not json')).toBe(EMPTY_CHAT_STREAM);
    expect(() =>
      applyChatEvent(EMPTY_CHAT_STREAM, chunk({ error: { message: 'Budget exhausted', code: 'budget_exhausted' } })),
    ).toThrow(new StreamError('Budget exhausted', 'budget_exhausted'));
  });
});
