/** Every error the SDK throws on purpose. */
export class SwitchyardError extends Error {
  override name = 'SwitchyardError';
  constructor(
    message: string,
    /** The HTTP status, when an answer caused it. */
    readonly status?: number,
    /** The server's error code (`budget_exhausted`, `invalid_grant`, `access_denied`…), when it sent one. */
    readonly code?: string,
  ) {
    super(message);
  }
}

/** No user is signed in, or the sign-in ended (a refresh failed): call `signIn()` again. */
export class NotSignedInError extends SwitchyardError {
  override name = 'NotSignedInError';
  constructor(message = 'Not signed in: call signIn()', status?: number) {
    super(message, status, 'not_signed_in');
  }
}

/** The authorization came back with an error (the user denied it, a state that does not match…). */
export class AuthorizationError extends SwitchyardError {
  override name = 'AuthorizationError';
}

/** The browser blocked the popup (open it from a click), or the user closed it before finishing. */
export class PopupError extends SwitchyardError {
  override name = 'PopupError';
}

/** Which limit refused the call: the user's whole budget, or a cap the user set on this app. */
export type LimitKind = 'account' | 'app';

/**
 * A call the budget cannot cover: the account's balance (`kind: 'account'`, fix with `topUp()`) or one of the caps
 * the user set on this app (`kind: 'app'`, fix with `raiseCap()`). Built from `budget_exhausted` and from
 * `spend_limit_exceeded` alike.
 */
export class BudgetExhaustedError extends SwitchyardError {
  override name = 'BudgetExhaustedError';
  /** What the user has left, in currency units, when the server said. */
  readonly remainingBudget: number | null;
  /** Where the user adds funds. */
  readonly topUpUrl: string | null;
  /** The limit as the server named it: `account` (the balance), or the app's cap: `monthly`, `per_request`… */
  readonly limit: string;
  readonly kind: LimitKind;
  /** The server's whole error object. */
  readonly details: Record<string, unknown>;
  constructor(error: Record<string, unknown>, status?: number) {
    const code = typeof error.code === 'string' ? error.code : 'budget_exhausted';
    super(typeof error.message === 'string' ? error.message : 'The budget cannot cover this call', status, code);
    const limit = typeof error.limit === 'string' ? error.limit : 'account';
    this.limit = limit;
    // An app's token has no key limits, so anything but the account is one of the app's caps.
    this.kind = limit === 'account' || limit === 'balance' ? 'account' : 'app';
    this.remainingBudget = typeof error.remainingBudget === 'number' ? error.remainingBudget : null;
    this.topUpUrl = typeof error.topUpUrl === 'string' ? error.topUpUrl : null;
    this.details = error;
  }
}

const BUDGET_CODES = ['budget_exhausted', 'spend_limit_exceeded'];

const record = (value: unknown): Record<string, unknown> | null =>
  value !== null && typeof value === 'object' ? (value as Record<string, unknown>) : null;

function parse(text: unknown): unknown {
  if (typeof text !== 'string') return text;
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/** The typed error for an error answer's body (OpenAI's or Anthropic's shape), or null for any other error. */
export function errorFromBody(body: unknown, status?: number): SwitchyardError | null {
  const outer = record(parse(body));
  const error = record(outer?.error) ?? outer;
  if (!error) return null;
  if (typeof error.code === 'string' && BUDGET_CODES.includes(error.code))
    return new BudgetExhaustedError(error, status);
  // Anthropic's face has no code for it: a 403 permission_error that names the budget or a cap.
  if (status === 403 && error.type === 'permission_error' && typeof error.message === 'string') {
    const text = error.message;
    if (/budget|balance|spending cap|spend limit/i.test(text))
      return new BudgetExhaustedError({ ...error, limit: /app/i.test(text) ? 'app' : 'account' }, status);
  }
  return null;
}

/**
 * The SDK's error for anything a call threw: the SDK's own errors as they are, and the errors of the `openai`
 * SDK, `@anthropic-ai/sdk` and the Vercel AI SDK read by their status and body (a 401 is NotSignedInError, a
 * budget refusal BudgetExhaustedError). Anything else comes back unchanged.
 */
export function toSwitchyardError(thrown: unknown): unknown {
  let current: unknown = thrown;
  for (let depth = 0; depth < 4 && record(current); depth += 1) {
    if (current instanceof SwitchyardError) return current;
    const error = current as Record<string, unknown>;
    const status = [error.status, error.statusCode].find((value): value is number => typeof value === 'number');
    const typed =
      errorFromBody(error.responseBody, status) ??
      errorFromBody(error.error, status) ??
      errorFromBody(error.body, status);
    if (typed) return typed;
    if (status === 401) return new NotSignedInError('The sign-in ended: call signIn()', 401);
    current = error.lastError ?? error.cause;
  }
  return thrown;
}
