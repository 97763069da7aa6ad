import { readAuthorizationParams, toQueryString } from './authorization-params';

describe('readAuthorizationParams', () => {
  it('keeps the parameters the API validates, unchanged, and leaves out the others', () => {
    const read = readAuthorizationParams(
      new URLSearchParams('client_id=syc_1&state=a%20b&scope=api:access&prompt=none'),
    );
    expect(read).toEqual({ ok: true, params: { client_id: 'syc_1', scope: 'api:access', state: 'a b' } });
  });

  it('refuses a link without client_id, which the API requires', () => {
    for (const query of ['state=x', 'client_id=&state=x']) {
      expect(readAuthorizationParams(new URLSearchParams(query))).toEqual({
        ok: false,
        problem: expect.stringContaining('client_id'),
      });
    }
  });

  it('refuses a repeated parameter (RFC 6749 section 3.1)', () => {
    expect(readAuthorizationParams(new URLSearchParams('client_id=a&client_id=b'))).toEqual({
      ok: false,
      problem: expect.stringContaining('repeats'),
    });
  });
});

describe('toQueryString', () => {
  it('writes the parameters in one order, whatever the order they were read in', () => {
    expect(toQueryString({ state: 's', client_id: 'c', redirect_uri: 'https://app.example/cb' })).toBe(
      'client_id=c&redirect_uri=https%3A%2F%2Fapp.example%2Fcb&state=s',
    );
  });
});
