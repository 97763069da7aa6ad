/**
 * The subset of the Anthropic Messages API wire format that the translator writes and reads.
 * Reference: https://docs.anthropic.com/en/api/messages (request and response),
 * https://docs.anthropic.com/en/docs/build-with-claude/streaming (events),
 * https://docs.anthropic.com/en/api/errors (error shapes).
 * Responses are untrusted input: the translator reads them defensively, these types only document the shape.
 */

export const ANTHROPIC_VERSION = '2023-06-01';

export interface AnthropicTextBlock {
  type: 'text';
  text: string;
}

/** Images: base64 (jpeg, png, gif, webp) or a URL the provider fetches itself. */
export interface AnthropicImageBlock {
  type: 'image';
  source: { type: 'base64'; media_type: string; data: string } | { type: 'url'; url: string };
}

/** PDF documents (from OpenAI `file` parts). https://docs.anthropic.com/en/docs/build-with-claude/pdf-support */
export interface AnthropicDocumentBlock {
  type: 'document';
  source: { type: 'base64'; media_type: 'application/pdf'; data: string };
}

export interface AnthropicToolUseBlock {
  type: 'tool_use';
  id: string;
  name: string;
  input: Record<string, unknown>;
}

export interface AnthropicToolResultBlock {
  type: 'tool_result';
  tool_use_id: string;
  content?: string;
}

export type AnthropicContentBlock =
  AnthropicTextBlock | AnthropicImageBlock | AnthropicDocumentBlock | AnthropicToolUseBlock | AnthropicToolResultBlock;

export interface AnthropicMessage {
  role: 'user' | 'assistant';
  content: AnthropicContentBlock[];
}

export interface AnthropicTool {
  name: string;
  description?: string;
  input_schema: Record<string, unknown>;
}

export type AnthropicToolChoice =
  | { type: 'none' }
  | { type: 'auto' | 'any'; disable_parallel_tool_use?: boolean }
  | { type: 'tool'; name: string; disable_parallel_tool_use?: boolean };

export interface AnthropicRequest {
  model: string;
  /** Required by Anthropic, unlike OpenAI. */
  max_tokens: number;
  messages: AnthropicMessage[];
  system?: string;
  temperature?: number;
  top_p?: number;
  stop_sequences?: string[];
  stream?: boolean;
  tools?: AnthropicTool[];
  tool_choice?: AnthropicToolChoice;
  metadata?: { user_id: string };
}

/** https://docs.anthropic.com/en/api/messages#response-stop-reason */
export type AnthropicStopReason =
  'end_turn' | 'max_tokens' | 'stop_sequence' | 'tool_use' | 'pause_turn' | 'refusal' | 'model_context_window_exceeded';

export interface AnthropicUsage {
  input_tokens?: number;
  output_tokens?: number;
  cache_creation_input_tokens?: number | null;
  cache_read_input_tokens?: number | null;
}

/** The error types of https://docs.anthropic.com/en/api/errors. */
export type AnthropicErrorType =
  | 'invalid_request_error'
  | 'authentication_error'
  | 'permission_error'
  | 'not_found_error'
  | 'request_too_large'
  | 'rate_limit_error'
  | 'api_error'
  | 'overloaded_error';
