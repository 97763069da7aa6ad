import { SseEvent, SseParser, sseData } from './sse';

const encoder = new TextEncoder();

function parseAll(chunks: Array<Uint8Array | string>): SseEvent[] {
  const parser = new SseParser();
  const events: SseEvent[] = [];
  for (const chunk of chunks) events.push(...parser.push(chunk));
  events.push(...parser.flush());
  return events;
}

function bytewise(text: string): Uint8Array[] {
  return Array.from(encoder.encode(text), (byte) => Uint8Array.of(byte));
}

const STREAM = [
  ': keep-alive comment',
  'event: message_start',
  'data: {"type":"message_start"}',
  '',
  'event: content_block_delta',
  'data: {"text":"héllo 👋 世界"}',
  '',
  'data: first line',
  'data:second line',
  'data:  two spaces keep one',
  '',
  '',
].join('\n');

const EXPECTED: SseEvent[] = [
  { event: 'message_start', data: '{"type":"message_start"}' },
  { event: 'content_block_delta', data: '{"text":"héllo 👋 世界"}' },
  { data: 'first line\nsecond line\n two spaces keep one' },
];

describe('SseParser', () => {
  it('parses a whole stream in one chunk', () => {
    expect(parseAll([STREAM])).toEqual(EXPECTED);
  });

  it('gives the same events when fed byte by byte, including inside multi-byte UTF-8 characters', () => {
    expect(parseAll(bytewise(STREAM))).toEqual(EXPECTED);
  });

  it('accepts CRLF and CR line endings, even with CRLF split across chunks', () => {
    const crlf = STREAM.replace(/\n/g, '\r\n');
    const cr = STREAM.replace(/\n/g, '\r');
    expect(parseAll([crlf])).toEqual(EXPECTED);
    expect(parseAll(bytewise(crlf))).toEqual(EXPECTED);
    expect(parseAll([cr])).toEqual(EXPECTED);
    expect(parseAll(bytewise(cr))).toEqual(EXPECTED);
    // A CR at the very end of a chunk, then its LF: one line break, not two (which would dispatch too early).
    expect(parseAll(['data: a\r', '\ndata: b\r', '\n\r', '\n'])).toEqual([{ data: 'a\nb' }]);
  });

  it('splits a multi-byte character across chunks without mangling it', () => {
    const bytes = encoder.encode('data: 👋\n\n');
    // '👋' is 4 bytes starting at offset 6: split after its first and third byte.
    expect(parseAll([bytes.slice(0, 7), bytes.slice(7, 9), bytes.slice(9)])).toEqual([{ data: '👋' }]);
  });

  it('ignores comment lines and events without a data line', () => {
    expect(parseAll([': ping\n\nevent: lonely\n\nid: 7\n\n:another\ndata: x\n\n'])).toEqual([{ data: 'x', id: '7' }]);
  });

  it('dispatches an empty data line as an empty string', () => {
    expect(parseAll(['data\n\ndata:\n\n'])).toEqual([{ data: '' }, { data: '' }]);
  });

  it('strips only one space after the colon and treats a colon-less line as a field name', () => {
    expect(parseAll(['data:   three\n\n'])).toEqual([{ data: '  three' }]);
    expect(parseAll(['event\ndata: y\n\n'])).toEqual([{ data: 'y' }]);
  });

  it('keeps the last event id across events and ignores ids containing NUL', () => {
    expect(parseAll(['id: 1\ndata: a\n\ndata: b\n\nid: 2\u0000\ndata: c\n\nid\ndata: d\n\n'])).toEqual([
      { data: 'a', id: '1' },
      { data: 'b', id: '1' },
      { data: 'c', id: '1' },
      { data: 'd' },
    ]);
  });

  it('resets the event type after each dispatch', () => {
    expect(parseAll(['event: a\ndata: 1\n\ndata: 2\n\n'])).toEqual([{ event: 'a', data: '1' }, { data: '2' }]);
  });

  it('ignores unknown fields and retry', () => {
    expect(parseAll(['retry: 1000\nfoo: bar\ndata: z\n\n'])).toEqual([{ data: 'z' }]);
  });

  it('drops a leading byte order mark', () => {
    expect(parseAll([Uint8Array.of(0xef, 0xbb, 0xbf), encoder.encode('data: bom\n\n')])).toEqual([{ data: 'bom' }]);
  });

  it('on flush, dispatches a final event whose blank line never came', () => {
    const parser = new SseParser();
    expect(parser.push('data: {"last":true}\n')).toEqual([]);
    expect(parser.flush()).toEqual([{ data: '{"last":true}' }]);
    const unterminated = new SseParser();
    expect(unterminated.push('data: tail')).toEqual([]);
    expect(unterminated.flush()).toEqual([{ data: 'tail' }]);
  });

  it('returns events as soon as their blank line arrives', () => {
    const parser = new SseParser();
    expect(parser.push('data: a\n')).toEqual([]);
    expect(parser.push('\ndata: b')).toEqual([{ data: 'a' }]);
    expect(parser.push('\n\n')).toEqual([{ data: 'b' }]);
    expect(parser.flush()).toEqual([]);
  });

  it('handles a very long line fed in tiny chunks in linear time', () => {
    const payload = 'x'.repeat(400_000);
    const parser = new SseParser();
    const started = Date.now();
    parser.push('data: ');
    for (let i = 0; i < payload.length; i += 4) parser.push(payload.slice(i, i + 4));
    const events = parser.push('\n\n');
    expect(events).toHaveLength(1);
    expect(events[0].data).toHaveLength(payload.length);
    expect(Date.now() - started).toBeLessThan(2_000);
  });
});

describe('sseData', () => {
  it('writes one data line per event, with JSON escaping line breaks', () => {
    expect(sseData({ a: 'line\nbreak' })).toBe('data: {"a":"line\\nbreak"}\n\n');
    expect(sseData('[DONE]')).toBe('data: [DONE]\n\n');
    expect(sseData(undefined)).toBe('data: null\n\n');
  });

  it('round-trips through the parser', () => {
    const payload = { id: 'chatcmpl-1', choices: [{ delta: { content: 'a\r\nb' } }] };
    expect(parseAll([sseData(payload) + sseData('[DONE]')]).map((event) => event.data)).toEqual([
      JSON.stringify(payload),
      '[DONE]',
    ]);
  });
});
