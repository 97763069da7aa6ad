/**
 * Server-sent events: an incremental parser for upstream streams and a writer for our own OpenAI-style stream.
 *
 * The parser follows the WHATWG HTML "event stream interpretation" algorithm
 * (https://html.spec.whatwg.org/multipage/server-sent-events.html#event-stream-interpretation):
 * - lines end in CRLF, LF or CR, and a chunk may end between the CR and the LF of a CRLF;
 * - the stream is UTF-8, and a chunk may end inside a multi-byte character (node's StringDecoder keeps the
 *   incomplete bytes until the next chunk, at a fraction of TextDecoder's cost per chunk); a leading BOM is dropped
 *   as the spec requires;
 * - `:` starts a comment line; `field: value` loses one optional space after the colon; a line without a colon is
 *   a field with an empty value;
 * - `data` lines accumulate, joined with "\n"; a blank line dispatches the event, but only if a `data` line was seen;
 * - the last event id persists across events until an `id` line changes it (ids containing NUL are ignored).
 *
 * Performance: each chunk is scanned once, its line ends found by native searches. An unfinished line is kept as a list of pieces and joined only when its
 * terminator arrives, so a long line fed in many small chunks costs linear, not quadratic, time.
 */

import { StringDecoder } from 'node:string_decoder';
import { Frame } from './frame';

/**
 * One server-sent event: its `event` field if the stream named one (the spec's default type, "message", is left to
 * the reader), its data, and the last event id in force when it was dispatched, if any. The parser makes them as
 * Frames (frame.ts), which the relay carries as they are.
 */
export interface SseEvent {
  event?: string;
  data: string;
  id?: string;
}

const LF = 10;

export class SseParser {
  private readonly decoder = new StringDecoder('utf8');
  private started = false;
  /** Pieces of the current, unterminated line. */
  private pendingLine: string[] = [];
  /** The previous chunk ended in CR: a LF at the start of the next chunk completes that CRLF, not a new line. */
  private skipLeadingLf = false;
  private dataLines: string[] = [];
  private hasData = false;
  private eventType = '';
  private lastEventId = '';

  /** Feeds a chunk (bytes from the network, or already-decoded text) and returns the events it completed. */
  push(chunk: Uint8Array | string): Frame[] {
    const events: Frame[] = [];
    this.scan(this.start(typeof chunk === 'string' ? chunk : this.decoder.write(chunk)), events);
    return events;
  }

  /**
   * Ends the stream and returns what was still pending.
   *
   * Deviation from the spec, on purpose: the spec discards an event that is not followed by a blank line when the
   * stream ends. Real upstreams sometimes close right after the last `data:` line (no blank line), and for Gemini
   * that last event carries finishReason and usageMetadata, so we dispatch it instead of losing it. A stream cut
   * in the middle of a line may then yield a truncated payload: translators ignore data that is not valid JSON.
   */
  flush(): Frame[] {
    const events: Frame[] = [];
    this.scan(this.start(this.decoder.end()), events);
    if (this.pendingLine.length > 0) {
      const line = this.pendingLine.join('');
      this.pendingLine = [];
      this.processLine(line, events);
    }
    this.dispatch(events);
    this.skipLeadingLf = false;
    return events;
  }

  /** The stream's text without its leading BOM. */
  private start(text: string): string {
    if (this.started || !text.length) return text;
    this.started = true;
    return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  }

  private scan(text: string, events: Frame[]): void {
    let start = 0;
    if (this.skipLeadingLf && text.length > 0) {
      this.skipLeadingLf = false;
      if (text.charCodeAt(0) === LF) start = 1;
    }
    const length = text.length;
    // Line ends are found with native searches, not a loop over each character: where the next LF and the next CR
    // are (length when there is none left), each searched again only once passed. Most streams have no CR at all.
    let lf = -1;
    let cr = -1;
    while (start < length) {
      if (lf < start) {
        lf = text.indexOf('\n', start);
        if (lf === -1) lf = length;
      }
      if (cr < start) {
        cr = text.indexOf('\r', start);
        if (cr === -1) cr = length;
      }
      const i = lf < cr ? lf : cr;
      if (i === length) break;
      const piece = text.slice(start, i);
      let line: string;
      if (this.pendingLine.length > 0) {
        this.pendingLine.push(piece);
        line = this.pendingLine.join('');
        this.pendingLine = [];
      } else {
        line = piece;
      }
      this.processLine(line, events);
      start = i + 1;
      if (i === cr) {
        if (start < length) {
          if (lf === start) start += 1;
        } else {
          this.skipLeadingLf = true;
        }
      }
    }
    if (start < length) this.pendingLine.push(start === 0 ? text : text.slice(start));
  }

  private processLine(line: string, events: Frame[]): void {
    if (line.length === 0) {
      this.dispatch(events);
      return;
    }
    const colon = line.indexOf(':');
    if (colon === 0) return; // comment (often a keep-alive)
    let field: string;
    let value: string;
    if (colon === -1) {
      field = line;
      value = '';
    } else {
      field = line.slice(0, colon);
      value = line.charCodeAt(colon + 1) === 32 ? line.slice(colon + 2) : line.slice(colon + 1);
    }
    switch (field) {
      case 'data':
        this.dataLines.push(value);
        this.hasData = true;
        break;
      case 'event':
        this.eventType = value;
        break;
      case 'id':
        if (!value.includes('\u0000')) this.lastEventId = value;
        break;
      default:
        // `retry` only matters to a reconnecting EventSource, which a proxy is not; unknown fields are ignored.
        break;
    }
  }

  private dispatch(events: Frame[]): void {
    if (this.hasData) {
      const event = new Frame(this.dataLines.length === 1 ? this.dataLines[0] : this.dataLines.join('\n'));
      if (this.eventType !== '') event.event = this.eventType;
      if (this.lastEventId !== '') event.id = this.lastEventId;
      events.push(event);
    }
    this.dataLines = [];
    this.hasData = false;
    this.eventType = '';
  }
}

/**
 * One SSE event for our clients, in the shape OpenAI streams use: a single `data:` line, then a blank line.
 * JSON.stringify escapes every line break, so a payload can never break out of its `data:` line.
 */
export function sseData(payload: unknown): string {
  if (payload === '[DONE]') return 'data: [DONE]\n\n';
  return `data: ${JSON.stringify(payload) ?? 'null'}\n\n`;
}

/** A frame as an SSE event, as it came: its event name (when it has one) and its data. */
export function sseText(frame: SseEvent): string {
  return frame.event ? `event: ${frame.event}\ndata: ${frame.data}\n\n` : `data: ${frame.data}\n\n`;
}
