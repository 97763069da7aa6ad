import type { CatalogModel } from '../../catalog/catalog.types';

/**
 * The `anthropic-beta` values the gateway passes to an Anthropic provider (docs/anthropic.md, "anthropic-beta"):
 * each changes the format or turns on something whose cost the request itself bounds (tokens, within max_tokens
 * and the input the reservation counted). Every other value is dropped, with a debug log, and never forwarded. The
 * betas of paid provider-side features (code execution, MCP, the Files API, skills, web fetch, fast mode,
 * server-side fallbacks, compaction, …) are among the dropped: the request fields and tools they would turn on are
 * refused by the request policy (anthropic-policy.ts), which names them, so a beta of that kind never takes effect.
 */
export const PASSED_BETAS: readonly string[] = [
  // Claude Code's own list (2.1.x): its identity, and format changes bounded by the request.
  'claude-code-20250219',
  'interleaved-thinking-2025-05-14',
  'thinking-token-count-2026-05-13',
  'context-management-2025-06-27',
  'prompt-caching-scope-2026-01-05',
  'mid-conversation-system-2026-04-07',
  'effort-2025-11-24',
  // Format and limits: priced as tokens, bounded by max_tokens and the input the call reserved for.
  'prompt-caching-2024-07-31',
  'extended-cache-ttl-2025-04-11',
  'token-counting-2024-11-01',
  'token-efficient-tools-2025-02-19',
  'fine-grained-tool-streaming-2025-05-14',
  'output-128k-2025-02-19',
  'output-300k-2026-03-24',
  'structured-outputs-2025-11-13',
  'model-context-window-exceeded-2025-08-26',
  'pdfs-2024-09-25',
  // Client tools: the caller runs them; the provider bills only their tokens.
  'computer-use-2024-10-22',
  'computer-use-2025-01-24',
  'computer-use-2025-11-24',
];

/** The long-context beta: passed only for a model whose catalog context length is above Anthropic's default 200k. */
const LONG_CONTEXT = /^context-1m-\d{4}-\d{2}-\d{2}$/;
const DEFAULT_CONTEXT = 200_000;
/** A header longer than this is dropped whole (no list of betas comes near it). */
const MAX_HEADER = 2048;

export interface BetaDecision {
  /** The header value to send, or null for none. */
  passed: string | null;
  /** Values left out, for the debug log. */
  dropped: string[];
}

/** The caller's `anthropic-beta` header (comma-separated, possibly repeated) filtered to the documented list. */
export function filterBetas(header: string | string[] | undefined, model: CatalogModel): BetaDecision {
  const raw = Array.isArray(header) ? header.join(',') : (header ?? '');
  if (!raw) return { passed: null, dropped: [] };
  if (raw.length > MAX_HEADER) return { passed: null, dropped: ['(a header over 2 KB)'] };
  const passed: string[] = [];
  const dropped: string[] = [];
  for (const value of raw.split(',').map((part) => part.trim())) {
    if (!value) continue;
    const ok =
      PASSED_BETAS.includes(value) || (LONG_CONTEXT.test(value) && (model.contextLength ?? 0) > DEFAULT_CONTEXT);
    if (!ok) dropped.push(value.slice(0, 100));
    else if (!passed.includes(value)) passed.push(value);
  }
  return { passed: passed.length ? passed.join(',') : null, dropped };
}
