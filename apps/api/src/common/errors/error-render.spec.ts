import { AppException } from './app.exception';
import { errorSurface, registerErrorShape, renderError } from './error-render';

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

  it('renders a registered face’s shape on the paths it owns', () => {
    registerErrorShape('test-face', {
      owns: (path) => path.startsWith('/test-face/'),
      status: () => 418,
      body: (failure, requestId) => ({ face: failure.code, requestId }),
    });
    expect(errorSurface('/TEST-FACE/x')).toBe('test-face');
    expect(renderError('test-face', error, 'req_1')).toEqual({ face: 'BUDGET_EXHAUSTED', requestId: 'req_1' });
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
