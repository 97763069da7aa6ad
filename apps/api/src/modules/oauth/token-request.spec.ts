import { OAuthException } from './oauth.exception';
import { param, presentedClient } from './token-request';

const basic = (id: string, secret: string) =>
  `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;

describe('token request parameters', () => {
  it('reads the form name or the interface’s JSON name', () => {
    expect(param({ grant_type: 'refresh_token' }, 'grant_type')).toBe('refresh_token');
    expect(param({ grantType: 'authorization_code' }, 'grant_type')).toBe('authorization_code');
    expect(param({ codeVerifier: 'v' }, 'code_verifier')).toBe('v');
    expect(param({}, 'code')).toBeUndefined();
  });

  it('refuses a repeated or non-string parameter', () => {
    expect(() => param({ code: ['a', 'b'] }, 'code')).toThrow(OAuthException);
    expect(() => param({ code: 5 }, 'code')).toThrow('code must be given once');
  });

  it('takes client_secret_basic with form-encoded parts', () => {
    expect(presentedClient({}, basic('syc_a b', 's:e/c'))).toEqual({
      clientId: 'syc_a b',
      secret: 's:e/c',
      basic: true,
    });
  });

  it('takes client_secret_post', () => {
    expect(presentedClient({ client_id: 'c', client_secret: 's' }, undefined)).toEqual({
      clientId: 'c',
      secret: 's',
      basic: false,
    });
  });

  it('refuses two authentication methods at once and a client_id that contradicts Basic', () => {
    expect(() => presentedClient({ client_secret: 's' }, basic('c', 's'))).toThrow('one client authentication method');
    expect(() => presentedClient({ client_id: 'other' }, basic('c', 's'))).toThrow('differs');
  });
});
