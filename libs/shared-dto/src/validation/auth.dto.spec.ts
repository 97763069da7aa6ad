import 'reflect-metadata';
import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { AuthLoginDto, AuthRegisterDto } from './auth.dto';

const check = <T extends object>(cls: new () => T, plain: object) => {
  const instance = plainToInstance(cls, plain);
  const errors = validateSync(instance, { whitelist: true, forbidNonWhitelisted: true });
  return { instance, fields: errors.map((error) => error.property).sort() };
};

describe('AuthRegisterDto', () => {
  it('accepts a valid registration and normalises the email to trimmed lower case', () => {
    const { instance, fields } = check(AuthRegisterDto, {
      email: '  Ada@Example.COM ',
      password: 'long enough',
      name: 'Ada',
    });
    expect(fields).toEqual([]);
    expect(instance.email).toBe('ada@example.com');
  });

  it('rejects a password shorter than 8 characters, a bad email and unknown fields', () => {
    expect(check(AuthRegisterDto, { email: 'nope', password: 'short', admin: true }).fields).toEqual([
      'admin',
      'email',
      'password',
    ]);
  });

  it('rejects a non-string name and an over-long one', () => {
    expect(check(AuthRegisterDto, { email: 'a@b.co', password: 'long enough', name: 42 }).fields).toEqual(['name']);
    expect(check(AuthRegisterDto, { email: 'a@b.co', password: 'long enough', name: 'x'.repeat(101) }).fields).toEqual([
      'name',
    ]);
  });
});

describe('AuthLoginDto', () => {
  it('needs both fields and does not judge password length (that is the server’s answer)', () => {
    expect(check(AuthLoginDto, { email: 'a@b.co', password: 'x' }).fields).toEqual([]);
    expect(check(AuthLoginDto, { email: '', password: '' }).fields).toEqual(['email', 'password']);
  });
});

describe('emails: NFKC and no invisible characters', () => {
  it('folds compatibility forms (fullwidth letters, the fullwidth at sign) into the plain address', () => {
    const { instance, fields } = check(AuthRegisterDto, {
      email: ' ＶＩＣＴＩＭ＠Example.com ',
      password: 'long enough',
    });
    expect(fields).toEqual([]);
    expect(instance.email).toBe('victim@example.com');
  });

  it.each([
    ['a zero-width space', 'victim\u200b@example.com', 'U+200B'],
    ['a zero-width joiner', 'vic\u200dtim@example.com', 'U+200D'],
    ['a right-to-left override', 'victim@\u202eexample.com', 'U+202E'],
    ['a left-to-right mark', '\u200evictim@example.com', 'U+200E'],
    ['a soft hyphen', 'vic\u00adtim@example.com', 'U+00AD'],
    ['a word joiner', 'victim\u2060@example.com', 'U+2060'],
    ['a byte-order mark', 'victim@example.com\ufeff', 'U+FEFF'],
    ['a Hangul filler', 'victim\u3164@example.com', 'U+1160'],
    ['a tag character', 'victim\u{e0041}@example.com', 'U+E0041'],
    ['a variation selector', 'victim\ufe0f@example.com', 'U+FE0F'],
    ['a no-break space inside', 'vic\u00a0tim@example.com', 'U+0020'],
    ['a line separator', 'victim\u2028@example.com', 'U+2028'],
    ['a control character', 'victim\u0007@example.com', 'U+0007'],
  ])('refuses %s, naming it, at registration and at sign-in', (_what, email, named) => {
    for (const cls of [AuthRegisterDto, AuthLoginDto]) {
      const instance = plainToInstance(cls, { email, password: 'long enough' });
      const errors = validateSync(instance, { whitelist: true, forbidNonWhitelisted: true });
      const messages = errors.flatMap((error) => Object.values(error.constraints ?? {}));
      expect(messages).toContain(`email must not contain invisible or formatting characters (${named})`);
    }
  });

  it('keeps addresses in other scripts', () => {
    expect(check(AuthLoginDto, { email: 'José@exämple.com', password: 'x' }).fields).toEqual([]);
    expect(check(AuthLoginDto, { email: 'अजय@डाटामेल.भारत', password: 'x' }).fields).toEqual([]);
  });
});
