import { hashPassword, randomToken, sha256, verifyPassword } from './crypto';

describe('passwords', () => {
  it('verifies the right password and refuses a wrong one', async () => {
    const stored = await hashPassword('correct horse battery');
    expect(stored).toMatch(/^scrypt\$15\$8\$1\$[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]+$/);
    await expect(verifyPassword('correct horse battery', stored)).resolves.toBe(true);
    await expect(verifyPassword('correct horse batterY', stored)).resolves.toBe(false);
  });

  it('salts every hash', async () => {
    expect(await hashPassword('same')).not.toBe(await hashPassword('same'));
  });

  it('stores the cost it hashed with, so a hash of a lower cost (the tests’ apps) verifies the same way', async () => {
    const stored = await hashPassword('correct horse battery', 10);
    expect(stored).toMatch(/^scrypt\$10\$8\$1\$/);
    await expect(verifyPassword('correct horse battery', stored)).resolves.toBe(true);
    await expect(verifyPassword('correct horse batterY', stored)).resolves.toBe(false);
    expect(await hashPassword('x', null)).toMatch(/^scrypt\$15\$/);
  });

  it('refuses a stored value of another scheme', async () => {
    await expect(verifyPassword('x', 'md5$abc')).resolves.toBe(false);
  });
});

describe('tokens', () => {
  it('have 256 random bits behind the prefix and hash to 64 hex characters', () => {
    const token = randomToken('sys_');
    expect(token).toMatch(/^sys_[A-Za-z0-9_-]{43}$/);
    expect(randomToken('sys_')).not.toBe(token);
    expect(sha256(token)).toMatch(/^[0-9a-f]{64}$/);
  });
});
