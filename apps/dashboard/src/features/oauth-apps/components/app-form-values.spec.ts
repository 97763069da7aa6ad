import { checkAppForm, EMPTY_APP_FORM } from './app-form-values';

describe('checkAppForm', () => {
  it('turns a valid form into the create request the API validates', () => {
    const check = checkAppForm({
      ...EMPTY_APP_FORM,
      clientName: '  My app ',
      redirectUris: 'https://app.example/cb\n\nhttps://app.example/cb\nmyapp:/cb',
      confidential: true,
    });
    expect(check).toEqual({
      ok: true,
      request: {
        clientName: 'My app',
        redirectUris: ['https://app.example/cb', 'myapp:/cb'],
        requestedScopes: ['api:access'],
        generateSecret: true,
        accessTokenTtlSeconds: 3600,
        refreshTokenTtlSeconds: 2_592_000,
      },
    });
  });

  it('names each field that breaks the API’s rules', () => {
    const check = checkAppForm({
      ...EMPTY_APP_FORM,
      clientName: 'ab',
      redirectUris: 'http://app.example/cb',
      accessTokenTtlSeconds: '59',
    });
    expect(check.ok).toBe(false);
    expect(check.ok ? [] : Object.keys(check.errors).sort()).toEqual([
      'accessTokenTtlSeconds',
      'clientName',
      'redirectUris',
    ]);
  });
});
