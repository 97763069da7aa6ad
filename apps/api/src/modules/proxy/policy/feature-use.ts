import { roundUp } from '../billing/pricing';
import { isObject, type PolicyVerdict } from './verdict';

/** What a call used of the priced provider-side features its policy verdict allowed (docs/pricing.md). */
export interface FeatureUse {
  /** The searches the provider's usage reported (`usage.server_tool_use.web_search_requests`). */
  reportedSearches: number;
  /** The web_search server_tool_use blocks relayed to the caller. */
  relayedSearches: number;
}

interface Metered {
  policy: PolicyVerdict | null;
  featureUse: FeatureUse;
}

export const noFeatureUse = (): FeatureUse => ({ reportedSearches: 0, relayedSearches: 0 });

/** A marker of the events worth parsing: only they can carry a search. */
const MAY_CARRY = /"server_tool_use"|"web_search_requests"/;

/**
 * Reads an Anthropic answer (its JSON, or one stream event's data) for searches: the usage's count, and each
 * web_search server_tool_use block relayed. Only a call whose verdict allowed searches is read.
 */
export function noteFeatureUse(call: Metered, answer: string | Record<string, unknown>): void {
  if (!call.policy?.webSearch) return;
  let body: unknown = answer;
  if (typeof answer === 'string') {
    if (!MAY_CARRY.test(answer)) return;
    try {
      body = JSON.parse(answer);
    } catch {
      return;
    }
  }
  if (!isObject(body)) return;
  const usage = isObject(body.usage)
    ? body.usage
    : isObject(body.message) && isObject(body.message.usage)
      ? body.message.usage
      : null;
  const reported = usage && isObject(usage.server_tool_use) ? usage.server_tool_use.web_search_requests : undefined;
  if (typeof reported === 'number' && Number.isFinite(reported))
    call.featureUse.reportedSearches = Math.max(call.featureUse.reportedSearches, Math.ceil(reported));
  const blocks =
    body.type === 'content_block_start' ? [body.content_block] : Array.isArray(body.content) ? body.content : [];
  for (const block of blocks)
    if (isObject(block) && block.type === 'server_tool_use' && block.name === 'web_search')
      call.featureUse.relayedSearches += 1;
}

/**
 * What the call's provider-side features cost, on top of its tokens: each search at the catalog's price, the
 * larger of what the provider reported and what was relayed, never above the max_uses the call reserved for.
 */
export function featureCostMicros(call: Metered): number {
  const search = call.policy?.webSearch;
  if (!search) return 0;
  const searches = Math.min(
    search.maxUses,
    Math.max(call.featureUse.reportedSearches, call.featureUse.relayedSearches),
  );
  return searches ? roundUp(searches * search.perSearch * 1e6) : 0;
}
