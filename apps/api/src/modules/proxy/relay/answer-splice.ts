import type { CostNote } from '../call/answer-writer';
import type { Json } from '../wire/frame';

/**
 * An upstream JSON answer with the public model name and `usage.cost` (and `usage.cost_details`, when given) written
 * into its own text, instead of a
 * JSON.stringify of the parsed answer (a few percent of a call's CPU). Done only when the text leaves no doubt:
 * it holds exactly one `"model":` key, followed by the name the parsed answer has, and at most one `"usage":` key,
 * followed by `{` (compact JSON, as providers send it). A quote inside a JSON string is always escaped, so these
 * byte patterns can only be keys. Anything else gives null, and the caller serialises the parsed answer.
 */
export function spliceAnswer(
  text: string,
  body: Record<string, unknown>,
  publicModel: string,
  cost: number,
  details?: Record<string, number>,
): string | null {
  let out = text;
  if (typeof body.model === 'string' && body.model !== publicModel) {
    const at = only(out, '"model":');
    const given = JSON.stringify(body.model);
    if (at < 0 || !out.startsWith(given, at + 8)) return null;
    out = `${out.slice(0, at + 8)}${JSON.stringify(publicModel)}${out.slice(at + 8 + given.length)}`;
  }
  const usage = body.usage;
  if (usage && typeof usage === 'object' && !Array.isArray(usage)) {
    if ('cost' in usage || 'cost_details' in usage) return null;
    const at = only(out, '"usage":');
    if (at < 0 || out[at + 8] !== '{') return null;
    const open = at + 9;
    const written = `"cost":${JSON.stringify(cost)}${details ? `,"cost_details":${JSON.stringify(details)}` : ''}`;
    out = `${out.slice(0, open)}${written}${out[open] === '}' ? '' : ','}${out.slice(open)}`;
  } else if (out.includes('"usage":')) return null;
  return out;
}

/** Where `pattern` occurs in `text` if it occurs exactly once, else -1. */
function only(text: string, pattern: string): number {
  const at = text.indexOf(pattern);
  return at >= 0 && text.indexOf(pattern, at + pattern.length) < 0 ? at : -1;
}

/**
 * A JSON answer in the provider's own format as the caller gets it: the public model's name and the cost written in
 * (`usage.cost`, `usage.cost_details`), spliced into the provider's own text when there is one and it allows,
 * else written into the parsed answer and serialised.
 */
export function answerWithCost(body: Json, original: string | undefined, publicModel: string, cost: CostNote): string {
  const text = original === undefined ? null : spliceAnswer(original, body, publicModel, cost.units, cost.details);
  if (text !== null) return text;
  if (typeof body.model === 'string') body.model = publicModel;
  const usage = body.usage as Json | undefined;
  if (usage && typeof usage === 'object') {
    usage.cost = cost.units;
    usage.cost_details = cost.details;
  }
  return JSON.stringify(body);
}
