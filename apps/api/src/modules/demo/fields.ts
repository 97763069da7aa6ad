import { invalid } from './errors';

/**
 * Readers for request fields that validate as OpenAI does and fail with OpenAI's messages and codes
 * (missing_required_parameter, invalid_type, integer_below_min_value, ...). JSON bodies arrive as `unknown`;
 * these helpers are the only place that narrows them.
 */
export type JsonObject = Record<string, unknown>;

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The JSON body as an object, or the 400 OpenAI answers to a body that is not one. */
export function bodyObject(json: unknown): JsonObject {
  if (!isObject(json)) {
    throw invalid('We could not parse the JSON body of your request. The body must be a JSON object.', null, null);
  }
  return json;
}

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'number') return Number.isInteger(value) ? 'an integer' : 'a decimal';
  if (typeof value === 'boolean') return 'a boolean';
  return `a ${typeof value}`;
}

export function invalidType(param: string, expected: string, value: unknown) {
  return invalid(
    `Invalid type for '${param}': expected ${expected}, but got ${typeName(value)} instead.`,
    param,
    'invalid_type',
  );
}

export function missing(param: string) {
  return invalid(`Missing required parameter: '${param}'.`, param, 'missing_required_parameter');
}

export function optionalString(body: JsonObject, name: string): string | undefined {
  const value = body[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw invalidType(name, 'a string', value);
  return value;
}

export function requiredString(body: JsonObject, name: string, options: { maxLength?: number } = {}): string {
  const value = optionalString(body, name);
  if (value === undefined) throw missing(name);
  if (value.length === 0) {
    throw invalid(`Invalid '${name}': empty string. Expected a string with minimum length 1.`, name, 'empty_string');
  }
  if (options.maxLength !== undefined && value.length > options.maxLength) {
    throw invalid(
      `Invalid '${name}': string too long. Expected a string with maximum length ${options.maxLength}, but got a string with length ${value.length} instead.`,
      name,
      'string_above_max_length',
    );
  }
  return value;
}

export function checkIntegerRange(name: string, value: number, min?: number, max?: number): number {
  if (min !== undefined && value < min) {
    throw invalid(
      `Invalid '${name}': integer below minimum value. Expected a value >= ${min}, but got ${value} instead.`,
      name,
      'integer_below_min_value',
    );
  }
  if (max !== undefined && value > max) {
    throw invalid(
      `Invalid '${name}': integer above maximum value. Expected a value <= ${max}, but got ${value} instead.`,
      name,
      'integer_above_max_value',
    );
  }
  return value;
}

export function optionalInteger(body: JsonObject, name: string, min?: number, max?: number): number | undefined {
  const value = body[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value)) throw invalidType(name, 'an integer', value);
  return checkIntegerRange(name, value, min, max);
}

export function optionalNumber(body: JsonObject, name: string, min?: number, max?: number): number | undefined {
  const value = body[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value)) throw invalidType(name, 'a number', value);
  if ((min !== undefined && value < min) || (max !== undefined && value > max)) {
    throw invalid(
      `Invalid '${name}': expected a number between ${min ?? '-inf'} and ${max ?? 'inf'}, but got ${value} instead.`,
      name,
      min !== undefined && value < min ? 'decimal_below_min_value' : 'decimal_above_max_value',
    );
  }
  return value;
}

export function optionalBoolean(body: JsonObject, name: string): boolean | undefined {
  const value = body[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'boolean') throw invalidType(name, 'a boolean', value);
  return value;
}

export function optionalEnum<T extends string>(body: JsonObject, name: string, allowed: readonly T[]): T | undefined {
  const value = optionalString(body, name);
  if (value === undefined) return undefined;
  return checkEnum(name, value, allowed);
}

export function checkEnum<T extends string>(name: string, value: string, allowed: readonly T[]): T {
  if (!(allowed as readonly string[]).includes(value)) {
    throw invalid(
      `Invalid value: '${value}'. Supported values are: ${allowed.map((v) => `'${v}'`).join(', ')}.`,
      name,
      'invalid_value',
    );
  }
  return value as T;
}

/** Multipart fields arrive as strings: turn the ones a handler reads into a JSON-like object. */
export function formFields(form: FormData, names: readonly string[]): JsonObject {
  const out: JsonObject = {};
  for (const name of names) {
    const value = form.get(name);
    if (value === null) continue;
    if (typeof value !== 'string') throw invalidType(name, 'a string', 'file');
    out[name] = value;
  }
  return out;
}

/** A multipart integer field (`n=2`), validated like its JSON counterpart. */
export function formInteger(fields: JsonObject, name: string, min?: number, max?: number): number | undefined {
  const raw = fields[name];
  if (raw === undefined || raw === '') return undefined;
  const value = Number(raw);
  if (!Number.isInteger(value)) throw invalidType(name, 'an integer', raw);
  return checkIntegerRange(name, value, min, max);
}

/** Shortens a quote to `max` characters (code points, so an emoji is never cut in half). */
export function truncateChars(text: string, max: number): string {
  const chars = Array.from(text);
  return chars.length <= max ? text : chars.slice(0, max).join('') + '…';
}
