import type { CatalogModel } from '../../catalog/catalog.types';
import { emptyVerdict, isObject, type Json, NOT_BOUNDED, type PolicyVerdict, refused } from '../../policy/verdict';

/**
 * A Messages request sent natively to an Anthropic provider (docs/anthropic.md, "Request fields"): what the
 * provider would do or fetch on the caller's behalf is refused unless the model's catalog entry prices and bounds
 * it; everything else passes as it came (fields the gateway does not know included: Anthropic refuses those it
 * does not know, and the betas that would turn paid ones on are filtered: anthropic-beta.ts).
 */

/** Top-level fields whose work or cost the gateway cannot bound: refused whatever their value. */
const REFUSED_FIELDS: Record<string, string> = {
  mcp_servers: 'MCP servers are called by the provider',
  container: 'a code-execution container runs on the provider’s account',
  compaction: 'compaction makes the provider summarise with further model calls',
  fallbacks: 'server-side fallbacks call other models at their own prices',
  fallback_credit_token: 'fallback credit is the provider account’s',
  billing_policy: 'billing is the gateway’s',
  thread: 'a stored thread brings in input the request does not carry',
  user_profile_id: 'user profiles are the provider account’s',
  workspace_id: 'workspaces are the provider account’s',
};

/** Anthropic-defined tools the caller runs itself (bash, text editor, computer, memory): priced as tokens. */
const CLIENT_TOOL = /^(bash|text_editor|computer|memory)_\d{8}$/;
/** What such a tool's definition and system prompt add to the input (Anthropic: 245 to ~1,000 tokens). */
export const CLIENT_TOOL_TOKENS = 1200;
const WEB_SEARCH = /^web_search_\d{8}$/;

export function anthropicPolicy(model: CatalogModel, json: Json, verdict: PolicyVerdict): void {
  anthropicFields(json);
  contextEdits(json.context_management);
  tools(model, json.tools, verdict);
  if (Array.isArray(json.system))
    json.system.forEach((block, at) => checkBlock(model, block, `system[${at}]`, verdict));
  if (Array.isArray(json.messages))
    json.messages.forEach((message, index) => {
      if (isObject(message) && Array.isArray(message.content))
        message.content.forEach((block, at) => checkBlock(model, block, `messages[${index}].content[${at}]`, verdict));
    });
}

/** The top-level fields refused for every model, whatever serves the Messages request. */
export function anthropicFields(json: Json): void {
  for (const [field, why] of Object.entries(REFUSED_FIELDS))
    if (json[field] !== undefined && json[field] !== null) throw refused(field, `${why}: ${NOT_BOUNDED}`);
  // service_tier: `auto` is the default (and `standard_only` never costs more); speed `fast` is priced above it.
  if (json.service_tier !== undefined && json.service_tier !== 'auto' && json.service_tier !== 'standard_only')
    throw refused('service_tier', 'only auto or standard_only are served: another tier is priced differently');
  if (json.speed !== undefined && json.speed !== null && json.speed !== 'standard')
    throw refused('speed', 'only standard speed is served: fast mode is priced above the model’s prices');
  if (json.inference_geo !== undefined && json.inference_geo !== null)
    throw refused('inference_geo', 'regional inference is priced above the model’s prices');
}

/** Clearing tool uses or thinking only shrinks the input; compaction (a model call of its own) is refused. */
function contextEdits(value: unknown): void {
  if (!isObject(value) || !Array.isArray(value.edits)) return;
  value.edits.forEach((edit, at) => {
    const type = isObject(edit) ? String(edit.type ?? '') : '';
    if (!type.startsWith('clear_'))
      throw refused(`context_management.edits[${at}]`, `${type.slice(0, 60) || 'this edit'}: ${NOT_BOUNDED}`);
  });
}

function tools(model: CatalogModel, value: unknown, verdict: PolicyVerdict): void {
  if (!Array.isArray(value)) return;
  value.forEach((tool, at) => {
    const param = `tools[${at}]`;
    if (!isObject(tool)) return;
    const type = typeof tool.type === 'string' ? tool.type : undefined;
    if (type === undefined || type === 'custom') return;
    if (CLIENT_TOOL.test(type)) {
      verdict.extraInputTokens += CLIENT_TOOL_TOKENS;
      return;
    }
    if (WEB_SEARCH.test(type)) return webSearch(model, tool, param, verdict);
    throw refused(param, `the ${type.slice(0, 60)} tool runs on the provider’s side: ${NOT_BOUNDED}`);
  });
}

/** web_search: served when the catalog prices it; max_uses is required and within the catalog's bound. */
function webSearch(model: CatalogModel, tool: Json, param: string, verdict: PolicyVerdict): void {
  const enabled = model.features.webSearch;
  if (!enabled)
    throw refused(
      param,
      `web search is not enabled for ${model.id} (its catalog entry gives it no price): ${NOT_BOUNDED}`,
    );
  if (verdict.webSearch) throw refused(param, 'give web_search once: its max_uses is the bound the call reserves for');
  const uses = tool.max_uses;
  if (typeof uses !== 'number' || !Number.isInteger(uses) || uses < 1 || uses > enabled.maxUses)
    throw refused(
      `${param}.max_uses`,
      `required, a whole number from 1 to ${enabled.maxUses}: the call reserves ${enabled.perSearch} per search for each`,
    );
  verdict.webSearch = { maxUses: uses, perSearch: enabled.perSearch };
}

/**
 * One content block (and the blocks inside a tool result or a content document): a document or image the
 * provider would fetch from its Files API or a URL, a container upload, and a PDF (its pages become images the
 * request does not measure) are the provider's own input.
 */
function checkBlock(model: CatalogModel, block: unknown, param: string, verdict: PolicyVerdict, depth = 0): void {
  if (!isObject(block) || depth > 4) return;
  const source = isObject(block.source) ? block.source : null;
  switch (block.type) {
    case 'document':
      if (source?.type === 'url') {
        if (!model.features.documentUrls)
          throw refused(
            `${param}.source`,
            `a document the provider fetches from a URL is not enabled for ${model.id}: send its content (base64 or text)`,
          );
        verdict.inputAtContextLength ??= 'a document fetched from a URL';
      } else if (source?.type === 'file')
        throw refused(
          `${param}.source`,
          'a file of the provider’s Files API belongs to the gateway’s own account: send its content',
        );
      else if (source?.type === 'base64' && source.media_type !== 'text/plain')
        verdict.inputAtContextLength ??= 'a PDF document';
      else if (source?.type === 'content' && Array.isArray(source.content))
        source.content.forEach((inner, at) =>
          checkBlock(model, inner, `${param}.source.content[${at}]`, verdict, depth + 1),
        );
      return;
    case 'image':
      if (source?.type === 'file')
        throw refused(
          `${param}.source`,
          'a file of the provider’s Files API belongs to the gateway’s own account: send its content',
        );
      return;
    case 'container_upload':
      throw refused(param, `a container upload goes to a code-execution container: ${NOT_BOUNDED}`);
    case 'tool_result':
      if (Array.isArray(block.content))
        block.content.forEach((inner, at) => checkBlock(model, inner, `${param}.content[${at}]`, verdict, depth + 1));
      return;
  }
}

/**
 * The request policy of a Messages request: sent natively (`native`: the model's provider takes Anthropic's format),
 * every check above; translated for another model, the top-level fields refused for every model (the translation
 * refuses the blocks and tools it cannot carry, and its Chat Completions request passes the gateway's own policy).
 */
export function messagesPolicy(model: CatalogModel, json: Json, native: boolean): PolicyVerdict {
  const verdict = emptyVerdict();
  if (native) anthropicPolicy(model, json, verdict);
  else anthropicFields(json);
  return verdict;
}
