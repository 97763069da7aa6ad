import { friendlyMessage, splitFailure } from './friendly-messages';

describe('friendlyMessage', () => {
  it('rewrites the server’s validation messages as sentences for people', () => {
    expect(friendlyMessage('email', 'email must be a valid email address')).toBe(
      'Enter an email address such as name@example.com.',
    );
    expect(friendlyMessage('password', 'password must be at least 8 characters')).toBe(
      'Use at least 8 characters for the password.',
    );
    expect(friendlyMessage('clientName', 'clientName must be longer than or equal to 3 characters')).toBe(
      'Use at least 3 characters for the app name.',
    );
    expect(friendlyMessage('name', 'name must be shorter than or equal to 100 characters')).toBe(
      'Use at most 100 characters for the name.',
    );
    expect(friendlyMessage('code', 'code must not be empty')).toBe('Enter the gift card code.');
    expect(friendlyMessage('amount', 'amount must not be less than 0.5')).toBe('The amount must be at least 0.5.');
    expect(friendlyMessage('count', 'count must not be greater than 500')).toBe(
      'The number of cards must be at most 500.',
    );
    expect(friendlyMessage('amount', 'amount must be a number with at most 2 decimals')).toBe(
      'Enter the amount as a number such as 10 or 12.50.',
    );
    expect(friendlyMessage('accessTokenTtlSeconds', 'accessTokenTtlSeconds must be an integer number')).toBe(
      'Enter the access token lifetime as a whole number.',
    );
    expect(
      friendlyMessage(
        'requestedScopes',
        'each value in requestedScopes must be one of the following values: api:access, profile:read',
      ),
    ).toBe('Choose the scopes from: api:access, profile:read.');
    expect(friendlyMessage('extra', 'property extra should not exist')).toMatch(/reload the page/);
  });

  it('keeps an unknown message’s words, naming the field in words, with a capital and a full stop', () => {
    expect(friendlyMessage('handle', 'handle is a reserved word; choose another')).toBe(
      'The handle is a reserved word; choose another.',
    );
    expect(friendlyMessage('redirectUris', 'redirectUris need https except on localhost')).toBe(
      'The redirect URIs need https except on localhost.',
    );
    expect(friendlyMessage('someNewField', 'someNewField looks odd')).toBe('The some new field looks odd.');
    expect(friendlyMessage(null, 'already fine.')).toBe('Already fine.');
  });
});

describe('splitFailure', () => {
  const refused = (details: { field: string; messages: string[] }[]) => ({
    message: 'Invalid request: check email',
    details,
  });

  it('puts friendly messages under the form’s fields, with no generic line on top', () => {
    const errors = splitFailure(refused([{ field: 'email', messages: ['email must be a valid email address'] }]), [
      'email',
      'password',
    ] as const);
    expect(errors.fields).toEqual({ email: ['Enter an email address such as name@example.com.'] });
    expect(errors.general).toEqual([]);
  });

  it('sends problems of fields the form lacks to its alert, with a line that says what to do', () => {
    const errors = splitFailure(refused([{ field: 'extra', messages: ['property extra should not exist'] }]), [
      'email',
    ] as const);
    expect(errors.general[0]).toBe('Please check the form.');
    expect(errors.general[1]).toMatch(/reload the page/);
  });

  it('keeps a non-validation message (already written for people), as a sentence', () => {
    const taken = { message: 'An account with this email exists', details: [] };
    expect(splitFailure(taken, ['email'] as const).general).toEqual(['An account with this email exists.']);
  });
});
