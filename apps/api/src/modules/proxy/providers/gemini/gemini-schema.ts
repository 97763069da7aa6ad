/**
 * JSON Schema (what OpenAI tools and response_format carry) → Gemini Schema, "a select subset of an OpenAPI 3.0
 * schema object" (https://ai.google.dev/api/caching#Schema). Gemini answers 400 to fields outside that subset
 * (additionalProperties, $schema, $ref, …), so we keep an allow-list, recursively, and rewrite the common JSON
 * Schema idioms it lacks:
 * - local `$ref`s into `$defs`/`definitions` are inlined (cycles become a plain object);
 * - `type: [T, "null"]` and `anyOf: [X, {type: "null"}]` become `nullable: true`; `oneOf` becomes `anyOf`;
 * - `allOf` is merged; `const` becomes a one-value enum;
 * - `enum` must be strings, and `format` is limited to what the Gemini Developer API accepts
 *   (firebase.google.com/docs/reference/js/ai.schemashared: "must be either 'enum' or 'date-time'" for strings).
 * Pure; the input is never modified.
 */
import { JsonObject, isRecord } from '../translator.types';

const COPIED_KEYS = [
  'title',
  'description',
  'nullable',
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
  'propertyOrdering',
] as const;

const FORMATS_BY_TYPE: Record<string, ReadonlySet<string>> = {
  string: new Set(['enum', 'date-time']),
  number: new Set(['float', 'double']),
  integer: new Set(['int32', 'int64']),
};

/** Deeper than this, a schema is cut to a plain object (guards against pathological or cyclic input). */
const MAX_DEPTH = 32;

interface Context {
  root: JsonObject;
  refStack: string[];
}

/** Resolves `#/$defs/Name` and `#/definitions/Name` (JSON Pointer escapes included) against the root schema. */
function resolveRef(ref: string, ctx: Context): JsonObject | undefined {
  const match = /^#\/(\$defs|definitions)\/([^/]+)$/.exec(ref);
  if (!match) return undefined;
  const container = ctx.root[match[1]];
  const target = isRecord(container) ? container[match[2].replace(/~1/g, '/').replace(/~0/g, '~')] : undefined;
  return isRecord(target) ? target : undefined;
}

function isNullSchema(schema: unknown): boolean {
  return (
    isRecord(schema) &&
    schema.type === 'null' &&
    Object.keys(schema).every((key) => key === 'type' || key === 'description')
  );
}

/** Merges `allOf` members (already converted) into one schema: properties and required are unioned. */
function mergeAll(schemas: JsonObject[]): JsonObject {
  const merged: JsonObject = {};
  for (const schema of schemas) {
    for (const [key, value] of Object.entries(schema)) {
      if (key === 'properties' && isRecord(value))
        merged.properties = { ...(isRecord(merged.properties) ? merged.properties : {}), ...value };
      else if (key === 'required' && Array.isArray(value)) {
        merged.required = [
          ...new Set([
            ...(Array.isArray(merged.required) ? (merged.required as unknown[]) : []),
            ...(value as unknown[]),
          ]),
        ];
      } else if (!(key in merged)) merged[key] = value;
    }
  }
  return merged;
}

function convert(node: unknown, depth: number, ctx: Context): JsonObject {
  if (!isRecord(node)) return {};
  if (depth > MAX_DEPTH) return { type: 'object' };

  if (typeof node.$ref === 'string') {
    const ref = node.$ref;
    const target = resolveRef(ref, ctx);
    const { $ref: _ignored, ...siblings } = node;
    if (!target || ctx.refStack.includes(ref)) {
      // Unresolvable or recursive: Gemini has no way to express it, an open object is the honest approximation.
      return { type: 'object', ...(typeof node.description === 'string' ? { description: node.description } : {}) };
    }
    ctx.refStack.push(ref);
    const resolved = convert({ ...target, ...siblings }, depth + 1, ctx);
    ctx.refStack.pop();
    return resolved;
  }

  let result: JsonObject = {};

  if (Array.isArray(node.allOf)) {
    result = mergeAll(node.allOf.map((member) => convert(member, depth + 1, ctx)));
  }

  for (const key of COPIED_KEYS) {
    if (node[key] !== undefined) result[key] = node[key];
  }

  // type: a list of types (JSON Schema) → one type, plus nullable (OpenAPI 3.0).
  if (Array.isArray(node.type)) {
    const types = node.type.filter((type): type is string => typeof type === 'string');
    const nonNull = types.filter((type) => type !== 'null');
    if (nonNull.length < types.length) result.nullable = true;
    if (nonNull.length === 1) result.type = nonNull[0];
    else if (nonNull.length > 1) result.anyOf = nonNull.map((type) => ({ type }));
  } else if (typeof node.type === 'string') {
    result.type = node.type;
  }

  const alternatives = Array.isArray(node.anyOf) ? node.anyOf : Array.isArray(node.oneOf) ? node.oneOf : undefined;
  if (alternatives) {
    const nonNull = alternatives.filter((alternative) => !isNullSchema(alternative));
    if (nonNull.length < alternatives.length) result.nullable = true;
    const converted = nonNull.map((alternative) => convert(alternative, depth + 1, ctx));
    if (converted.length === 1) result = mergeAll([result, converted[0]]);
    else if (converted.length > 1) result.anyOf = converted;
  }

  const enumValues = node.const !== undefined ? [node.const] : Array.isArray(node.enum) ? node.enum : undefined;
  if (enumValues) {
    if (enumValues.every((value) => typeof value === 'string')) {
      result.enum = enumValues;
      result.type ??= 'string';
    } else {
      // Gemini enums are strings only; keep the constraint where the model can still read it.
      const listed = `Allowed values: ${enumValues.map((value) => JSON.stringify(value)).join(', ')}.`;
      result.description = typeof result.description === 'string' ? `${result.description} ${listed}` : listed;
    }
  }

  if (
    typeof node.format === 'string' &&
    typeof result.type === 'string' &&
    FORMATS_BY_TYPE[result.type]?.has(node.format)
  ) {
    result.format = node.format;
  }

  if (isRecord(node.properties)) {
    const properties: JsonObject = {};
    for (const [name, schema] of Object.entries(node.properties)) properties[name] = convert(schema, depth + 1, ctx);
    if (Object.keys(properties).length > 0) {
      result.properties = isRecord(result.properties) ? { ...result.properties, ...properties } : properties;
    }
  }
  if (Array.isArray(node.required)) {
    const names = node.required.filter((name): name is string => typeof name === 'string');
    result.required = [
      ...new Set([...(Array.isArray(result.required) ? (result.required as unknown[]) : []), ...names]),
    ];
  }
  if (Array.isArray(result.required)) {
    // Gemini rejects a required name that is not a declared property.
    const declared = isRecord(result.properties) ? result.properties : {};
    const required = result.required.filter((name) => typeof name === 'string' && name in declared);
    if (required.length > 0) result.required = required;
    else delete result.required;
  }

  if (node.items !== undefined) {
    const items: unknown = Array.isArray(node.items) ? (node.items as unknown[])[0] : node.items; // tuple form: the first item type
    if (items !== undefined) result.items = convert(items, depth + 1, ctx);
  }
  return result;
}

/** Converts a JSON Schema to Gemini's Schema subset. */
export function toGeminiSchema(schema: unknown): JsonObject {
  const root = isRecord(schema) ? schema : {};
  return convert(root, 0, { root, refStack: [] });
}

/**
 * Function parameters: Gemini rejects an object schema with empty `properties` ("should be non-empty for OBJECT
 * type"), so a function without parameters is declared without `parameters` at all.
 */
export function toGeminiParameters(schema: unknown): JsonObject | undefined {
  if (!isRecord(schema)) return undefined;
  const converted = toGeminiSchema(schema);
  if (converted.type === 'object' && !isRecord(converted.properties)) return undefined;
  return converted;
}
