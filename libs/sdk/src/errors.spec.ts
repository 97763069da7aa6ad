import { BudgetExhaustedError, errorFromBody, NotSignedInError, SwitchyardError, toSwitchyardError } from './errors.js';

const ACCOUNT = {
  error: {
    message: 'Your budget is exhausted: add funds to continue',
    type: 'insufficient_quota',
    code: 'budget_exhausted',
    limit: 'account',
    remainingBudget: 0.0012,
    topUpUrl: 'https://sy.example/billing',
  },
};
const APP_CAP = {
  error: {
    ...ACCOUNT.error,
    message: 'The monthly spending cap you set for this app is reached',
    code: 'spend_limit_exceeded',
    limit: 'monthly',
    scope: 'app',
  },
};

describe('error mapping', () => {
  it('reads budget_exhausted for the account and for an app cap', () => {
    const account = errorFromBody(JSON.stringify(ACCOUNT), 403) as BudgetExhaustedError;
    expect(account).toBeInstanceOf(BudgetExhaustedError);
    expect(account).toMatchObject({
      kind: 'account',
      limit: 'account',
      remainingBudget: 0.0012,
      topUpUrl: 'https://sy.example/billing',
      status: 403,
      code: 'budget_exhausted',
    });
    expect(errorFromBody(APP_CAP, 403)).toMatchObject({ kind: 'app', limit: 'monthly', code: 'spend_limit_exceeded' });
  });

  it('reads spend_limit_exceeded (a key’s or an app’s limit) as an app cap, its figures kept', () => {
    const error = errorFromBody(
      { error: { code: 'spend_limit_exceeded', message: 'limit', limit: 'per_request', limitAmount: 0.01 } },
      403,
    ) as BudgetExhaustedError;
    expect(error).toMatchObject({ kind: 'app', limit: 'per_request', code: 'spend_limit_exceeded' });
    expect(error.details.limitAmount).toBe(0.01);
    // With no limit named, budget_exhausted is the account's.
    expect(errorFromBody({ error: { code: 'budget_exhausted' } })).toMatchObject({ kind: 'account' });
  });

  it('reads Anthropic’s 403 permission_error about the budget or an app’s cap', () => {
    const body = (message: string) => ({ type: 'error', error: { type: 'permission_error', message } });
    expect(errorFromBody(body('Your budget is exhausted: add funds'), 403)).toMatchObject({ kind: 'account' });
    expect(errorFromBody(body('The monthly spending cap you set for this app is reached'), 403)).toMatchObject({
      kind: 'app',
    });
    expect(errorFromBody(body('Endpoint not allowed'), 403)).toBeNull();
    expect(errorFromBody('not json', 403)).toBeNull();
  });

  it('maps the errors the openai, Anthropic and Vercel AI SDKs throw, through causes and retries', () => {
    const openaiError = Object.assign(new Error('403'), { status: 403, error: ACCOUNT.error });
    expect(toSwitchyardError(openaiError)).toBeInstanceOf(BudgetExhaustedError);
    const anthropicError = Object.assign(new Error('403'), {
      status: 403,
      error: {
        type: 'error',
        error: { type: 'permission_error', message: 'The daily spending cap you set for this app is reached' },
      },
    });
    expect(toSwitchyardError(anthropicError)).toMatchObject({ kind: 'app' });
    const aiSdkError = Object.assign(new Error('Forbidden'), {
      statusCode: 403,
      responseBody: JSON.stringify(APP_CAP),
    });
    const retryError = Object.assign(new Error('retries'), { lastError: aiSdkError });
    expect(toSwitchyardError(retryError)).toMatchObject({ kind: 'app', limit: 'monthly' });
    expect(toSwitchyardError(Object.assign(new Error('401'), { status: 401 }))).toBeInstanceOf(NotSignedInError);
    const own = new SwitchyardError('x');
    expect(toSwitchyardError(own)).toBe(own);
    const other = new TypeError('network');
    expect(toSwitchyardError(other)).toBe(other);
  });
});
