import type { AppException } from '../../../../common/errors/app.exception';
import type { FaceErrors } from '../face';

/** Google's RPC status for an HTTP status (https://cloud.google.com/apis/design/errors#handling_errors). */
export function googleStatus(status: number): string {
  switch (status) {
    case 400:
    case 413:
      return 'INVALID_ARGUMENT';
    case 401:
      return 'UNAUTHENTICATED';
    case 403:
      return 'PERMISSION_DENIED';
    case 404:
      return 'NOT_FOUND';
    case 409:
      return 'ABORTED';
    case 429:
      return 'RESOURCE_EXHAUSTED';
    case 499:
      return 'CANCELLED';
    case 501:
      return 'UNIMPLEMENTED';
    case 502:
    case 503:
      return 'UNAVAILABLE';
    case 504:
      return 'DEADLINE_EXCEEDED';
    default:
      return status >= 500 ? 'INTERNAL' : 'FAILED_PRECONDITION';
  }
}

/**
 * The status of an error on Gemini's routes: the gateway's own, but a bad API key is Google's 400 (reason
 * API_KEY_INVALID: what Google's SDKs and the Gemini CLI expect of one) and an unsupported media type 400.
 */
export function geminiStatus(error: AppException): number {
  if (error.code === 'INVALID_API_KEY') return 400;
  if (error.status === 415) return 400;
  return error.status;
}

/**
 * An error in Google's shape, `{ error: { code, message, status, details } }`, whatever the gateway's code: the code
 * is kept for programs in an ErrorInfo detail's `reason` (BUDGET_EXHAUSTED, MODEL_NOT_FOUND, …).
 */
export function googleError(status: number, error: AppException) {
  return {
    error: {
      code: status,
      message: error.message,
      status: googleStatus(status),
      details: [
        {
          '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
          reason: error.code === 'INVALID_API_KEY' ? 'API_KEY_INVALID' : error.code,
          domain: 'switchyard',
          ...errorMetadata(error),
        },
      ],
    },
  };
}

/**
 * The figures of a money refusal (budget_exhausted, spend_limit_exceeded: which limit, spent, needed…) or a rate
 * limit's wait, as ErrorInfo's `metadata`, which Google's schema types as a map of strings.
 */
function errorMetadata(error: AppException): { metadata?: Record<string, string> } {
  const { extra } = error.options;
  if (!extra) return {};
  const metadata: Record<string, string> = {};
  for (const [key, value] of Object.entries(extra))
    if (value !== undefined && value !== null)
      metadata[key] = typeof value === 'string' ? value : JSON.stringify(value);
  return { metadata };
}

/** An error once a stream began: a chunk holding the error (Google's SDKs throw it), and the stream ends. */
export function googleErrorEvent(error: AppException): string {
  return `data: ${JSON.stringify(googleError(error.status, error))}\r\n\r\n`;
}

/**
 * The face's paths under `/v1` and its aliases (`models/{model}:{action}` of its three actions: an OpenAI model's id may
 * hold colons too, `ft:gpt-4o:org:name`); under `/v1beta`, all of `models/`. Paths come in lower case.
 */
const V1_PATHS =
  /^\/(v1|apikey\/v1|oauth2\/v1|dashboard\/v1)\/models\/[^/]+:(generatecontent|streamgeneratecontent|counttokens)$/;
const V1BETA_PATHS = /^\/(apikey\/|oauth2\/)?v1beta\/models\//;

/** Every error on the face's paths, before or during a call, in Google's shape. */
export const GEMINI_ERRORS: FaceErrors = {
  owns: (lowerPath) => V1BETA_PATHS.test(lowerPath) || V1_PATHS.test(lowerPath),
  status: geminiStatus,
  body: (error) => googleError(geminiStatus(error), error),
};
