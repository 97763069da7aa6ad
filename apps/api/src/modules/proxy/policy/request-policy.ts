import type { RouteMethod } from '../catalog/actions';
import type { CatalogModel } from '../catalog/catalog.types';
import { chatPolicy, imagePolicy, responsesPolicy } from './openai-policy';
import { emptyVerdict, type Json, type PolicyVerdict } from './verdict';

export type { PolicyVerdict } from './verdict';

/**
 * The request-field policy (docs/gateway.md, "Nothing forwarded that the hold does not bound") of a request in
 * OpenAI's format, the gateway's own, per route; a face with a format of its own checks that format itself
 * (faces/<face>/) and its translation passes this one. Consulted before anything is reserved or forwarded: fields
 * and tools whose cost the gateway bounds and prices pass; provider-side fetching, tools and priced options are
 * refused with 400 invalid_request_error naming the field, unless the model's catalog entry enables the feature
 * with a price and a bound. Pure: it reads the request and the catalog entry, and returns what the reservation must
 * add.
 */
export function requestPolicy(
  action: RouteMethod,
  model: CatalogModel,
  json: Json | null,
  form: { field(name: string): string | undefined } | null,
): PolicyVerdict {
  const verdict = emptyVerdict();
  switch (action) {
    case 'chat_completions':
      if (json) chatPolicy(json);
      break;
    case 'responses':
      if (json) responsesPolicy(json, verdict);
      break;
    case 'image_generation':
    case 'image_edit':
    case 'image_variation':
      imagePolicy(model, action, (name) => (json ? json[name] : form?.field(name)), verdict);
      break;
    default:
      // Completions, embeddings, audio and video carry nothing the provider fetches or runs on the caller's behalf.
      break;
  }
  return verdict;
}

/**
 * The request with the fields the policy writes (an image variant's defaults): a JSON body re-serialised, a
 * multipart form's fields replaced. Nothing when there is nothing to write.
 */
export function withWrites<T extends { json: Json | null; raw: Buffer | null; form: WritableForm | null }>(
  input: T,
  verdict: PolicyVerdict,
): Partial<T> {
  const writes = Object.entries(verdict.writes);
  if (!writes.length) return {};
  if (input.form) for (const [name, value] of writes) input.form.fields.set(name, [value]);
  if (!input.json) return {};
  const json = { ...input.json, ...verdict.writes };
  return { json, raw: Buffer.from(JSON.stringify(json)) } as Partial<T>;
}

interface WritableForm {
  fields: Map<string, string[]>;
}
