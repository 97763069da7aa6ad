import { invalid, jsonResponse } from './errors';
import { bodyObject, invalidType, missing, optionalEnum, optionalInteger } from './fields';
import { fnv1a, seededRandom, sha256Hex, seedFromHex } from './hash';
import { countTokens } from './tokenizer';

/**
 * POST /v1/embeddings. Vectors are deterministic and unit-length, and they mean something: each is a sum of
 * per-word random directions (feature hashing) plus a small per-text component, so texts that share words
 * have a higher cosine similarity. The components of a vector are generated in order, so a `dimensions: d`
 * vector is the normalised prefix of the full one, like OpenAI's text-embedding-3 models.
 *
 * Values are rounded to float32 before they are sent, so `encoding_format: 'float'` and 'base64'
 * (little-endian float32 bytes, the format the official Node SDK asks for by default) carry the same numbers.
 */

export const DEFAULT_DIMENSIONS = 256;
const MAX_DIMENSIONS = 3072;
const MAX_INPUTS = 2048;
/** OpenAI's limits, which also bound the demo's work per request. */
const MAX_TOKENS_PER_INPUT = 8192;
const MAX_TOKENS_PER_REQUEST = 300_000;
/** Weight of the whole-text component, so "a b" and "b a" still get distinct vectors. */
const TEXT_WEIGHT = 0.35;

type EmbeddingInput = { kind: 'text'; text: string } | { kind: 'ids'; ids: number[] };

function readInputs(value: unknown): EmbeddingInput[] {
  if (value === undefined || value === null) throw missing('input');
  const empty = () => invalid("Invalid 'input': the input must not be empty.", 'input', 'empty_input');
  const checkText = (text: string) => {
    if (text.length === 0) throw empty();
    return { kind: 'text' as const, text };
  };
  const checkIds = (ids: unknown[], param: string) => {
    if (ids.length === 0) throw empty();
    if (!ids.every((id) => Number.isInteger(id) && (id as number) >= 0)) {
      throw invalidType(param, 'an array of non-negative integers', ids);
    }
    return { kind: 'ids' as const, ids: ids as number[] };
  };
  if (typeof value === 'string') return [checkText(value)];
  if (!Array.isArray(value)) throw invalidType('input', 'a string or an array', value);
  if (value.length === 0) throw empty();
  if (value.length > MAX_INPUTS) {
    throw invalid(
      `Invalid 'input': array too long. Expected an array with maximum length ${MAX_INPUTS}, but got an array with length ${value.length} instead.`,
      'input',
      'array_above_max_length',
    );
  }
  if (value.every((item) => typeof item === 'string')) return value.map(checkText);
  if (value.every((item) => typeof item === 'number')) return [checkIds(value, 'input')];
  if (value.every((item) => Array.isArray(item))) {
    return (value as unknown[][]).map((ids, index) => checkIds(ids, `input[${index}]`));
  }
  throw invalidType('input', 'a string, an array of strings or an array of token arrays', value);
}

/** Adds `weight` × a deterministic pseudo-random direction (seeded by `seed`) into `out`. */
function addDirection(out: Float64Array, seed: number, weight: number): void {
  const random = seededRandom(seed);
  // Sum of two uniforms minus one: a cheap, zero-mean, bell-shaped component.
  for (let i = 0; i < out.length; i++) out[i] += weight * (random() + random() - 1);
}

/** The unit vector for one input, as float32-exact numbers. */
export function embedVector(input: EmbeddingInput, dimensions: number): number[] {
  const out = new Float64Array(dimensions);
  const units =
    input.kind === 'text' ? (input.text.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? []) : input.ids.map(String);
  // Repeated words cost one direction each (weighted by their count), which keeps long inputs cheap.
  const counts = new Map<string, number>();
  for (const unit of units) counts.set(unit, (counts.get(unit) ?? 0) + 1);
  for (const [unit, count] of counts) addDirection(out, fnv1a(unit), count);
  const whole = input.kind === 'text' ? input.text : JSON.stringify(input.ids);
  addDirection(
    out,
    seedFromHex(sha256Hex('embedding', whole)),
    units.length === 0 ? 1 : TEXT_WEIGHT * Math.sqrt(units.length),
  );
  let norm = 0;
  for (let i = 0; i < dimensions; i++) norm += out[i] * out[i];
  norm = Math.sqrt(norm) || 1;
  return Array.from(out, (v) => Math.fround(v / norm));
}

/** Little-endian float32 bytes, base64: what `encoding_format: 'base64'` returns. */
export function float32Base64(vector: number[]): string {
  const buffer = Buffer.alloc(vector.length * 4);
  vector.forEach((v, i) => buffer.writeFloatLE(v, i * 4));
  return buffer.toString('base64');
}

export function embeddings(json: unknown, model: string): Response {
  const body = bodyObject(json);
  const inputs = readInputs(body.input);
  const dimensions = optionalInteger(body, 'dimensions', 1, MAX_DIMENSIONS) ?? DEFAULT_DIMENSIONS;
  const encoding = optionalEnum(body, 'encoding_format', ['float', 'base64'] as const) ?? 'float';
  let promptTokens = 0;
  for (const input of inputs) {
    const tokens = input.kind === 'text' ? countTokens(input.text) : input.ids.length;
    if (tokens > MAX_TOKENS_PER_INPUT) {
      throw invalid(
        `This model's maximum context length is ${MAX_TOKENS_PER_INPUT} tokens, however you requested ${tokens} tokens in an input. Please reduce your input.`,
        'input',
        'context_length_exceeded',
      );
    }
    promptTokens += tokens;
  }
  if (promptTokens > MAX_TOKENS_PER_REQUEST) {
    throw invalid(
      `Requested ${promptTokens} tokens, max ${MAX_TOKENS_PER_REQUEST} tokens per request.`,
      'input',
      'max_tokens_per_request',
    );
  }
  return jsonResponse({
    object: 'list',
    data: inputs.map((input, index) => {
      const vector = embedVector(input, dimensions);
      return { object: 'embedding', index, embedding: encoding === 'base64' ? float32Base64(vector) : vector };
    }),
    model,
    usage: { prompt_tokens: promptTokens, total_tokens: promptTokens },
  });
}
