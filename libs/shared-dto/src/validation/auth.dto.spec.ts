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
