import type { FeatureUse } from '../../call/feature-use';
import type { PolicyVerdict } from '../../policy/verdict';
import { isRecord as isObject } from '../translator.types';

interface Metered {
  policy: PolicyVerdict | null;
  featureUse: FeatureUse;
}

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
  if (typeof reported === 'number' && Number.isFinite(reported)) call.featureUse.reported(reported);
  const blocks =
    body.type === 'content_block_start' ? [body.content_block] : Array.isArray(body.content) ? body.content : [];
  for (const block of blocks)
    if (isObject(block) && block.type === 'server_tool_use' && block.name === 'web_search') call.featureUse.relayed();
}
