/**
 * Errors in OpenAI's wire shape: `{"error":{"message","type","param","code"}}`. The demo throws a DemoError
 * anywhere in a handler and DemoProvider turns it into the Response, so validation code reads linearly.
 */
export class DemoError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly param: string | null = null,
    readonly code: string | null = null,
    readonly type: string = 'invalid_request_error',
  ) {
    super(message);
    this.name = 'DemoError';
  }
}

/** A 400 invalid_request_error. */
export function invalid(message: string, param: string | null, code: string | null = 'invalid_value'): DemoError {
  return new DemoError(400, message, param, code);
}

export function errorResponse(error: DemoError): Response {
  return jsonResponse(
    { error: { message: error.message, type: error.type, param: error.param, code: error.code } },
    error.status,
  );
}

export function jsonResponse(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json', ...headers },
  });
}
