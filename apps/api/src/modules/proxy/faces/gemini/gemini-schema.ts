import type { Json } from '../../wire/frame';

/**
 * Gemini's Schema ("a select subset of an OpenAPI 3.0 schema object": upper-case `type`, `nullable`) as the JSON
 * Schema a chat tool's parameters and a json_schema answer format carry: the reverse of the Gemini provider's
 * conversion. Unknown keys are dropped; the input is never modified; deeper than 32 levels a schema becomes a plain
 * object (a caller's nesting cannot exhaust the stack).
 */
const COPIED = [
  'title',
  'description',
  'format',
  'enum',
  'required',
  'default',
  'example',
  'pattern',
  'minimum',
  'maximum',
  'minItems',
  'maxItems',
  'minLength',
  'maxLength',
  'minProperties',
  'maxProperties',
];
const MAX_DEPTH = 32;

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

export function toJsonSchema(schema: unknown, depth = 0): Json {
  if (!isObject(schema) || depth > MAX_DEPTH) return { type: 'object' };
  const out: Json = {};
  const type = typeof schema.type === 'string' ? schema.type.toLowerCase() : undefined;
  if (type && type !== 'type_unspecified') out.type = schema.nullable === true ? [type, 'null'] : type;
  for (const key of COPIED) if (schema[key] !== undefined) out[key] = schema[key];
  if (isObject(schema.properties))
    out.properties = Object.fromEntries(
      Object.entries(schema.properties).map(([name, value]) => [name, toJsonSchema(value, depth + 1)]),
    );
  if (schema.items !== undefined) out.items = toJsonSchema(schema.items, depth + 1);
  if (Array.isArray(schema.anyOf)) out.anyOf = schema.anyOf.map((item: unknown) => toJsonSchema(item, depth + 1));
  return out;
}
