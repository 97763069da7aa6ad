/** A JSON object of a provider's answer, read defensively: every field is checked before use. */
export type Json = Record<string, unknown>;

/** Not parsed yet (null, once parsed, means: not a JSON object). */
const UNREAD = Symbol('unread');

/**
 * One event of a streamed answer as it travels from the provider, through the relay, to the face that writes it
 * (docs/architecture.md, "The call pipeline"): the event's own data text, and its JSON parsed only when a part asks
 * for it, and then once for all of them. A face that writes the provider's own format passes the text on untouched
 * (the OpenAI passthrough parses only the frames that may carry usage); a face that translates reads the JSON. A
 * frame a gateway part makes from a value (a translated chunk) holds both from the start.
 *
 * The provider's side marks the frames the relay must know about: the one that carries the call's final usage
 * (`finalUsage`, the usage object inside its JSON) and the answer's last one (`last`: after it the answer ends,
 * whatever the provider still sends).
 */
export class Frame {
  event: string | undefined;
  id: string | undefined;
  /** The usage object in this frame's JSON when the frame carries the call's final usage. */
  finalUsage: Json | undefined;
  /** The answer's last frame ([DONE], a Responses stream's final event). */
  last: true | undefined;
  #parsed: Json | null | typeof UNREAD;

  constructor(
    public data: string,
    parsed: Json | null | typeof UNREAD = UNREAD,
  ) {
    this.event = undefined;
    this.id = undefined;
    this.finalUsage = undefined;
    this.last = undefined;
    this.#parsed = parsed;
  }

  /** A frame of a value the gateway made (a translated chunk). */
  static of(value: object, event?: string): Frame {
    const frame = new Frame(JSON.stringify(value), value as Json);
    frame.event = event;
    return frame;
  }

  /** The data as a JSON object, or null when it is none (`[DONE]`, a truncated line, an array). Parsed once. */
  json(): Json | null {
    if (this.#parsed !== UNREAD) return this.#parsed;
    let value: unknown;
    try {
      value = JSON.parse(this.data);
    } catch {
      value = null;
    }
    return (this.#parsed =
      typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : null);
  }

  /** Whether the JSON was parsed already (or given): reading it again costs nothing. */
  get parsed(): boolean {
    return this.#parsed !== UNREAD;
  }

  /** Replaces the frame's data with a value (a renamed model, a cost written in). */
  replace(value: Json): void {
    this.#parsed = value;
    this.data = JSON.stringify(value);
  }
}
