import type { ModelMethod } from '@switchyard/shared-dto';

/**
 * What a route does: a catalog method the model must list (docs/decisions.md#model-catalog), which its estimate,
 * policy and bill follow; or one of the gateway's own (a models list, a token count, a video's status or content).
 */
export type RouteMethod =
  ModelMethod | 'list_models' | 'get_model' | 'video_retrieve' | 'video_content' | 'video_remix' | 'count_tokens';

/** The catalog method a route's model must list (a video's retrieval is its generation's; a count, a chat's). */
export function catalogMethodOf(action: RouteMethod): ModelMethod {
  if (action === 'video_retrieve' || action === 'video_content' || action === 'video_remix') return 'video_generation';
  if (action === 'count_tokens' || action === 'list_models' || action === 'get_model') return 'chat_completions';
  return action;
}

/** Whether a route is answered by its face itself, outside the call pipeline (nothing is forwarded or billed). */
export function isLocal(action: RouteMethod): boolean {
  return action === 'list_models' || action === 'get_model' || action === 'count_tokens';
}
