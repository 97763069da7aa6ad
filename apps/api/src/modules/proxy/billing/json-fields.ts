const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const COMMA = 0x2c;
const COLON = 0x3a;

const isSpace = (byte: number) => byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;

/**
 * Sets whole-number fields of a JSON object's top level in the caller's own bytes, without re-serialising the body
 * (the gateway writes the output bound it reserved for this way; docs/budgets.md). Every occurrence of a named key at
 * the top level gets the value, whatever escapes spell its name (`"max\u005ftokens"` is `max_tokens` to every JSON
 * parser, and a repeated key's last value wins in most of them); a key that is absent is added at the front, after
 * `prefix` (the raw text of members to put first, without a trailing comma, or null). `raw` must be a JSON object
 * that JSON.parse accepted.
 */
export function setTopLevelFields(
  raw: Buffer,
  values: Record<string, number>,
  prefix: Buffer | null = null,
  scan = true,
): Buffer {
  const open = raw.indexOf(OPEN_OBJECT);
  if (open < 0) throw new Error('not a JSON object');
  const edits: [start: number, end: number][] = [];
  const editValues: string[] = [];
  const seen = new Set<string>();
  let i = skipSpace(raw, open + 1);
  const empty = raw[i] === CLOSE_OBJECT;
  // `scan` false: the caller knows none of the keys is there (JSON.parse found none of them, in any spelling), so
  // the body is not read through; the members go in front.
  while (scan && !empty && i < raw.length) {
    const keyEnd = stringEnd(raw, i);
    const key = keyOf(raw, i, keyEnd);
    i = skipSpace(raw, keyEnd);
    if (raw[i] !== COLON) throw new Error('malformed JSON object');
    const valueStart = skipSpace(raw, i + 1);
    const valueEnd = valueEndAt(raw, valueStart);
    if (Object.hasOwn(values, key)) {
      edits.push([valueStart, valueEnd]);
      editValues.push(String(values[key]));
      seen.add(key);
    }
    i = skipSpace(raw, valueEnd);
    if (raw[i] === COMMA) i = skipSpace(raw, i + 1);
    else if (raw[i] === CLOSE_OBJECT) break;
    else throw new Error('malformed JSON object');
  }
  const front = Object.keys(values)
    .filter((key) => !seen.has(key))
    .map((key) => `${JSON.stringify(key)}:${values[key]}`);
  const parts: Buffer[] = [raw.subarray(0, open + 1)];
  if (prefix) parts.push(prefix);
  if (front.length) parts.push(Buffer.from((prefix ? ',' : '') + front.join(',')));
  if ((prefix || front.length) && !empty) parts.push(Buffer.from(','));
  let from = open + 1;
  edits.forEach(([start, end], index) => {
    parts.push(raw.subarray(from, start), Buffer.from(editValues[index]));
    from = end;
  });
  parts.push(raw.subarray(from));
  return Buffer.concat(parts);
}

function skipSpace(raw: Buffer, i: number): number {
  while (i < raw.length && isSpace(raw[i])) i += 1;
  return i;
}

/** The index just past the string that starts (with its quote) at `start`. */
function stringEnd(raw: Buffer, start: number): number {
  if (raw[start] !== QUOTE) throw new Error('malformed JSON object');
  for (let i = start + 1; i < raw.length; i += 1) {
    if (raw[i] === BACKSLASH) i += 1;
    else if (raw[i] === QUOTE) return i + 1;
  }
  throw new Error('malformed JSON object');
}

function keyOf(raw: Buffer, start: number, end: number): string {
  const text = raw.toString('utf8', start, end);
  return text.includes('\\') ? (JSON.parse(text) as string) : text.slice(1, -1);
}

/** The index just past the value that starts at `start` (a string, an object or array, or a literal). */
function valueEndAt(raw: Buffer, start: number): number {
  const first = raw[start];
  if (first === QUOTE) return stringEnd(raw, start);
  if (first === OPEN_OBJECT || first === OPEN_ARRAY) {
    let depth = 0;
    for (let i = start; i < raw.length; i += 1) {
      const byte = raw[i];
      if (byte === QUOTE) i = stringEnd(raw, i) - 1;
      else if (byte === OPEN_OBJECT || byte === OPEN_ARRAY) depth += 1;
      else if ((byte === CLOSE_OBJECT || byte === CLOSE_ARRAY) && --depth === 0) return i + 1;
    }
    throw new Error('malformed JSON object');
  }
  let i = start;
  while (i < raw.length && raw[i] !== COMMA && raw[i] !== CLOSE_OBJECT && !isSpace(raw[i])) i += 1;
  return i;
}
