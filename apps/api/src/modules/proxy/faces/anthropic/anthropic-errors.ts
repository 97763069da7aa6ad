import type { AppException } from '../../../../common/errors/app.exception';
import type { FaceErrors } from '../face';

/** The Messages routes (docs/anthropic.md), under each prefix, whatever follows the allowlist's verdict. */
const ANTHROPIC_PATHS = /^\/(v1|apikey\/v1|oauth2\/v1|dashboard\/v1)\/messages(\/count_tokens)?\/?$/;

/** Anthropic's error `type` for an HTTP status (docs/anthropic.md, "Errors"). */
export function anthropicErrorType(status: number): string {
  if (status === 401) return 'authentication_error';
  if (status === 403) return 'permission_error';
  if (status === 404) return 'not_found_error';
  if (status === 413) return 'request_too_large';
  if (status === 429) return 'rate_limit_error';
  if (status === 503 || status === 529) return 'overloaded_error';
  if (status >= 500) return 'api_error';
  return 'invalid_request_error';
}

/**
 * The status of an error on Anthropic's routes: the gateway's own, but a bad API key is 401 (Anthropic's
 * authentication_error; the OpenAI face answers 403) and an unsupported media type 400.
 */
export function anthropicStatus(error: AppException): number {
  if (error.code === 'INVALID_API_KEY') return 401;
  if (error.status === 415) return 400;
  return error.status;
}

export interface AnthropicErrorBody {
  type: 'error';
  error: { type: string; message: string; code?: string; [figure: string]: unknown };
  request_id?: string;
}

/** An error in Anthropic's shape: `{"type":"error","error":{"type","message"}}` (and the request's id). */
export function anthropicError(status: number, message: string, requestId?: string): AnthropicErrorBody {
  return {
    type: 'error',
    error: { type: anthropicErrorType(status), message },
    ...(requestId ? { request_id: requestId } : {}),
  };
}

/** An error once a stream began: Anthropic's `event: error`, and the stream ends. */
export function anthropicErrorEvent(error: AppException): string {
  return `event: error\ndata: ${JSON.stringify(anthropicError(error.status, error.message))}\n\n`;
}

/** Every error on the Messages routes, before or during a call, in Anthropic's shape, whatever its code. */
export const ANTHROPIC_ERRORS: FaceErrors = {
  owns: (lowerPath) => ANTHROPIC_PATHS.test(lowerPath),
  status: anthropicStatus,
  body: (error, requestId) => {
    const body = anthropicError(anthropicStatus(error), error.message, requestId);
    // An error with figures (budget_exhausted, spend_limit_exceeded, a rate limit's wait) carries the gateway's code
    // and the figures beside Anthropic's type and message, so a client can tell which limit refused it.
    const { extra } = error.options;
    if (extra) Object.assign(body.error, { code: error.code.toLowerCase(), ...extra });
    return body;
  },
};
