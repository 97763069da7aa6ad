import type { UserResponse } from '@switchyard/shared-dto';
import { userClaims } from './id-token';

const user: UserResponse = {
  id: 'u1',
  email: 'ada@example.com',
  name: 'Ada',
  handle: 'ada',
  role: 'user',
  createdAt: '2026-11-28T00:00:00.000Z',
  emailVerified: false,
};

describe('the claims the scopes promise', () => {
  it('says whether the address is verified, as the account says', () => {
    expect(userClaims(user, ['openid', 'email'])).toEqual({ sub: 'u1', email: user.email, email_verified: false });
    expect(userClaims({ ...user, emailVerified: true }, ['openid', 'email']).email_verified).toBe(true);
  });

  it('gives nothing the scopes do not hold', () => {
    expect(userClaims(user, ['openid'])).toEqual({ sub: 'u1' });
    expect(userClaims(user, ['openid', 'profile'])).toEqual({ sub: 'u1', name: 'Ada', preferred_username: 'ada' });
  });
});
