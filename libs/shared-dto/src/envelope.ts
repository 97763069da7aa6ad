/** The envelope of every /api/v1 answer (docs/decisions.md#answers-and-errors). */
export interface ApiSuccess<T> {
  success: true;
  message?: string;
  data: T;
  timestamp: string;
}

/** One field that failed validation. */
export interface ApiErrorDetail {
  field: string;
  messages: string[];
}

export interface ApiFailure {
  success: false;
  message: string;
  error: { code: string; details?: ApiErrorDetail[]; [extra: string]: unknown };
  timestamp: string;
  requestId?: string;
}

export type ApiEnvelope<T> = ApiSuccess<T> | ApiFailure;

/** OpenAI's error shape, used on /v1 and its aliases. */
export interface OpenAIErrorBody {
  error: { message: string; type: string; code: string | null; param?: string | null; [extra: string]: unknown };
}

/** RFC 6749 section 5.2 error shape, used on /oauth2/token and /oauth2/revoke. */
export interface OAuthErrorBody {
  error: string;
  error_description?: string;
}
