import 'reflect-metadata';
import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { KeyLimitsUpdateDto } from './keys.dto';
import { ConsentLimitsDto } from './oauth.dto';
import { PaymentCheckoutCreateDto } from './payments.dto';
import { GiftCardIssueDto } from './giftcards.dto';

const fields = <T extends object>(cls: new () => T, plain: object) =>
  validateSync(plainToInstance(cls, plain), { whitelist: true, forbidNonWhitelisted: true }).map(
    (error) => error.property,
  );

describe('amounts with at most N decimals', () => {
  it('refuses a number written with an exponent (1e-7) instead of throwing, and one with too many decimals', () => {
    for (const daily of [1e-7, 0.0000001, 1.1234567, 5e-324]) {
      expect(fields(KeyLimitsUpdateDto, { daily })).toEqual(['daily']);
      expect(fields(ConsentLimitsDto, { daily })).toEqual(['daily']);
    }
    for (const amount of [1e-7, 10.001, 1e-3]) {
      expect(fields(PaymentCheckoutCreateDto, { amount })).toEqual(['amount']);
      expect(fields(GiftCardIssueDto, { amount, count: 1 })).toEqual(['amount']);
    }
  });

  it('accepts amounts within the decimals, exponent-written or not', () => {
    for (const daily of [0, 1, 0.5, 0.123456, 1e-6, 1e5, 999999.999999])
      expect(fields(KeyLimitsUpdateDto, { daily })).toEqual([]);
    for (const amount of [0.5, 19.99, 1e3, 10_000]) expect(fields(PaymentCheckoutCreateDto, { amount })).toEqual([]);
  });

  it('keeps refusing what is not a finite number', () => {
    for (const daily of ['1', Infinity, NaN, true]) expect(fields(KeyLimitsUpdateDto, { daily })).toEqual(['daily']);
  });
});
