import type { CatalogModel } from '../catalog/catalog.types';
import { isObject, type Json, NOT_BOUNDED, type PolicyVerdict, refused } from './verdict';

/**
 * Requests in OpenAI's format (chat completions, Responses, images), whatever provider serves them
 * (docs/gateway.md, "Request fields the gateway refuses"): built-in tools the provider runs, provider-side
 * search, stored completions, priced service tiers and files of the provider's own Files API are refused.
 */

/** `auto` and `default` are the standard prices; `flex`, `scale` and `priority` are priced otherwise. */
const STANDARD_TIERS = new Set(['auto', 'default']);
/** Responses tools the caller runs itself (priced as tokens): functions, custom tools, a local shell, patches. */
const CLIENT_TOOLS = new Set(['function', 'custom', 'local_shell', 'apply_patch']);
const FILES_API = 'a file of the provider’s Files API belongs to the gateway’s own account: send its content';

function serviceTier(json: Json): void {
  const tier = json.service_tier;
  if (tier !== undefined && tier !== null && !(typeof tier === 'string' && STANDARD_TIERS.has(tier)))
    throw refused('service_tier', 'only auto or default are served: another tier is priced differently');
}

export function chatPolicy(json: Json): void {
  if (json.web_search_options !== undefined && json.web_search_options !== null)
    throw refused('web_search_options', `web search runs on the provider’s side: ${NOT_BOUNDED}`);
  if (json.store === true)
    throw refused(
      'store',
      'stored completions are kept on the gateway’s own provider account; send store: false or leave it out',
    );
  serviceTier(json);
  if (Array.isArray(json.tools))
    json.tools.forEach((tool, at) => {
      const type = isObject(tool) ? tool.type : undefined;
      if (type !== undefined && type !== 'function' && type !== 'custom')
        throw refused(
          `tools[${at}]`,
          `the ${String(type).slice(0, 60)} tool runs on the provider’s side: ${NOT_BOUNDED}`,
        );
    });
  if (Array.isArray(json.messages))
    json.messages.forEach((message, index) => {
      if (!isObject(message) || !Array.isArray(message.content)) return;
      message.content.forEach((part, at) => {
        if (isObject(part) && part.type === 'file' && isObject(part.file) && part.file.file_id !== undefined)
          throw refused(`messages[${index}].content[${at}].file.file_id`, FILES_API);
      });
    });
}

export function responsesPolicy(json: Json, verdict: PolicyVerdict): void {
  serviceTier(json);
  clientTools(json.tools, 'tools', 0);
  walkInput(json.input, 'input', verdict, 0);
}

/** Responses tools: the caller's own, or a namespace (a named group, as Codex sends) of the caller's own. */
function clientTools(tools: unknown, param: string, depth: number): void {
  if (!Array.isArray(tools)) return;
  tools.forEach((tool, at) => {
    const type = isObject(tool) ? String(tool.type ?? '') : '';
    if (type === 'namespace' && depth === 0) return clientTools((tool as Json).tools, `${param}[${at}].tools`, 1);
    if (!CLIENT_TOOLS.has(type))
      throw refused(
        `${param}[${at}]`,
        `the ${type.slice(0, 60) || 'untyped'} tool runs on the provider’s side: ${NOT_BOUNDED}`,
      );
  });
}

/** Input items and their parts: Files API references are refused, stored items bounded at the context length. */
function walkInput(value: unknown, param: string, verdict: PolicyVerdict, depth: number): void {
  if (depth > 3) return;
  if (Array.isArray(value)) {
    value.forEach((item, at) => walkInput(item, `${param}[${at}]`, verdict, depth + 1));
    return;
  }
  if (!isObject(value)) return;
  if (value.type === 'item_reference') verdict.inputAtContextLength ??= 'a stored item (item_reference)';
  if (
    (value.type === 'input_file' || value.type === 'input_image') &&
    value.file_id !== undefined &&
    value.file_id !== null
  )
    throw refused(`${param}.file_id`, FILES_API);
  if (Array.isArray(value.content)) walkInput(value.content, `${param}.content`, verdict, depth + 1);
}

/**
 * Images: with per-variant prices in the catalog, the request names a listed quality and size (or the gateway
 * writes the first quality and the first size listed), and the call is priced at that variant; a variant without
 * a price is refused. A flat price covers every variant. `field` reads the JSON body or the multipart form.
 */
export function imagePolicy(
  model: CatalogModel,
  action: string,
  field: (name: string) => unknown,
  verdict: PolicyVerdict,
): void {
  const partial = field('partial_images');
  if (partial !== undefined && partial !== null && Number(partial) !== 0)
    throw refused('partial_images', 'partial images are billed as extra output the gateway does not price');
  const table = model.imagePrices;
  if (!table) return;
  const qualities = Object.keys(table);
  const given = (name: string): string | undefined => {
    const value = field(name);
    if (value === undefined || value === null || value === '') return undefined;
    if (typeof value !== 'string') throw refused(name, 'must be a string');
    return value;
  };
  // Variations take no quality: their price is the first quality's.
  const askedQuality = action === 'image_variation' ? undefined : given('quality');
  const quality = askedQuality ?? qualities[0];
  const sizes = table[quality];
  if (!sizes)
    throw refused(
      'quality',
      `${model.id} is priced for quality ${qualities.join(', ')}: ${quality.slice(0, 40)} has no price`,
    );
  const size = given('size') ?? Object.keys(sizes)[0];
  const price = sizes[size];
  if (price === undefined)
    throw refused(
      'size',
      `${model.id} at quality ${quality} is priced for ${Object.keys(sizes).join(', ')}: ${size.slice(0, 40)} has no price`,
    );
  verdict.imagePrice = price;
  if (askedQuality === undefined && action !== 'image_variation') verdict.writes.quality = quality;
  if (field('size') === undefined || field('size') === null || field('size') === '') verdict.writes.size = size;
}
