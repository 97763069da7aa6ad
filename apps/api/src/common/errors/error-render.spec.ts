import { AppException } from './app.exception';
import { errorSurface, renderError } from './error-render';

describe('errorSurface', () => {
  it.each([
    ['/v1/chat/completions', 'openai'],
    ['/V1/models', 'openai'],
    ['/apikey/v1/embeddings', 'openai'],
    ['/oauth2/v1/chat/completions', 'openai'],
    ['/oauth2/token', 'oauth'],
    ['/oauth2/revoke/', 'oauth'],
    ['/oauth2/authorize', 'envelope'],
    ['/api/v1/auth/me', 'envelope'],
    ['/v1beta/x', 'envelope'],
  ])('%s answers errors in the %s shape', (path, surface) => {
    expect(errorSurface(path)).toBe(surface);
  });
});

describe('renderError', () => {
  const error = new AppException('BUDGET_EXHAUSTED', 403, 'Budget exhausted', {
    details: [{ field: 'model', messages: ['bad'] }],
    extra: { remainingBudget: 0 },
  });

  it('renders OpenAI’s shape with a lower-case code and a type from the status', () => {
    expect(renderError('openai', error, 'req_1')).toEqual({
      error: {
        message: 'Budget exhausted',
        type: 'permission_error',
        code: 'budget_exhausted',
        param: 'model',
        remainingBudget: 0,
      },
    });
  });

  it('renders Anthropic’s shape, with the code and the figures of an error that has them', () => {
    expect(renderError('anthropic', error, 'req_1')).toEqual({
      type: 'error',
      error: { type: 'permission_error', message: 'Budget exhausted', code: 'budget_exhausted', remainingBudget: 0 },
      request_id: 'req_1',
    });
    expect(renderError('anthropic', new AppException('MODEL_NOT_FOUND', 404, 'No such model'), undefined)).toEqual({
      type: 'error',
      error: { type: 'not_found_error', message: 'No such model' },
    });
  });

  it('renders RFC 6749’s shape', () => {
    expect(renderError('oauth', new AppException('INVALID_GRANT', 400, 'Code expired'), undefined)).toEqual({
      error: 'invalid_grant',
      error_description: 'Code expired',
    });
  });

  it('renders the envelope with details, extra fields and the request id', () => {
    const body = renderError('envelope', error, 'req_1');
    expect(body).toMatchObject({
      success: false,
      message: 'Budget exhausted',
      error: { code: 'BUDGET_EXHAUSTED', details: [{ field: 'model', messages: ['bad'] }], remainingBudget: 0 },
      requestId: 'req_1',
    });
    expect(new Date((body as { timestamp: string }).timestamp).toString()).not.toBe('Invalid Date');
  });
});
