import { AppException } from '../../../../common/errors/app.exception';
import { ANTHROPIC_ERRORS } from './anthropic-errors';

describe('the Anthropic face’s errors', () => {
  it('owns the Messages routes under every prefix, and nothing else', () => {
    expect(ANTHROPIC_ERRORS.owns('/v1/messages')).toBe(true);
    expect(ANTHROPIC_ERRORS.owns('/oauth2/v1/messages/count_tokens')).toBe(true);
    expect(ANTHROPIC_ERRORS.owns('/v1/chat/completions')).toBe(false);
  });

  it('renders Anthropic’s shape, with the code and the figures of an error that has them', () => {
    const error = new AppException('BUDGET_EXHAUSTED', 403, 'Budget exhausted', {
      details: [{ field: 'model', messages: ['bad'] }],
      extra: { remainingBudget: 0 },
    });
    expect(ANTHROPIC_ERRORS.body(error, 'req_1')).toEqual({
      type: 'error',
      error: { type: 'permission_error', message: 'Budget exhausted', code: 'budget_exhausted', remainingBudget: 0 },
      request_id: 'req_1',
    });
    expect(ANTHROPIC_ERRORS.body(new AppException('MODEL_NOT_FOUND', 404, 'No such model'), undefined)).toEqual({
      type: 'error',
      error: { type: 'not_found_error', message: 'No such model' },
    });
  });

  it('answers a bad API key with 401 and an unsupported media type with 400, as Anthropic does', () => {
    expect(ANTHROPIC_ERRORS.status(new AppException('INVALID_API_KEY', 403, 'x'))).toBe(401);
    expect(ANTHROPIC_ERRORS.status(new AppException('UNSUPPORTED_MEDIA_TYPE', 415, 'x'))).toBe(400);
  });
});
