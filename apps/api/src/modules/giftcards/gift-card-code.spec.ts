import { generateGiftCardCode, hashGiftCardCode, normaliseGiftCardCode } from './gift-card-code';

describe('gift card codes', () => {
  it('are SYGC and four groups of four base32 characters, 80 random bits, all different', () => {
    const codes = new Set(Array.from({ length: 2000 }, () => generateGiftCardCode()));
    expect(codes.size).toBe(2000);
    for (const code of codes) expect(code).toMatch(/^SYGC(-[0-9A-HJKMNP-TV-Z]{4}){4}$/);
  });

  it('use every bit of the random bytes', () => {
    expect(generateGiftCardCode((size) => Buffer.alloc(size, 0))).toBe('SYGC-0000-0000-0000-0000');
    expect(generateGiftCardCode((size) => Buffer.alloc(size, 0xff))).toBe('SYGC-ZZZZ-ZZZZ-ZZZZ-ZZZZ');
    // 0x84 0x21 … spells 10000 10000 10000 … in 5-bit groups.
    expect(
      generateGiftCardCode((size) =>
        Buffer.from([0x84, 0x21, 0x08, 0x42, 0x10, 0x84, 0x21, 0x08, 0x42, 0x10].slice(0, size)),
      ),
    ).toBe('SYGC-GGGG-GGGG-GGGG-GGGG');
  });

  it('normalise what people type: case, spaces, dashes, a missing prefix, O for 0 and I or L for 1', () => {
    const code = 'SYGC-AB01-CD23-EF45-GH67';
    for (const typed of [
      code,
      code.toLowerCase(),
      ' sygc ab01 cd23 ef45 gh67 ',
      'AB01CD23EF45GH67',
      'SYGC-ABO1-CD23-EF45-GH67',
      'sygc-abOi-cd23-ef45-gh67',
      'SYGCAB0LCD23EF45GH67',
    ]) {
      expect(normaliseGiftCardCode(typed)).toBe(code);
    }
  });

  it('refuse what cannot be a code', () => {
    for (const typed of [
      '',
      'SYGC',
      'SYGC-AB01-CD23-EF45-GH6',
      'SYGC-AB01-CD23-EF45-GH678',
      'SYGC-AB01-CD23-EF45-GHU7',
      'XXXX-AB01-CD23-EF45-GH67',
      'AB01-CD23-EF45-GH67-!!',
    ]) {
      expect(normaliseGiftCardCode(typed)).toBeNull();
    }
  });

  it('hash the canonical form, so every way of typing a code finds the same card', () => {
    const canonical = normaliseGiftCardCode('sygc ab01 cd23 ef45 gh67')!;
    expect(hashGiftCardCode(canonical)).toBe(hashGiftCardCode(normaliseGiftCardCode('SYGC-AB01-CD23-EF45-GH67')!));
    expect(hashGiftCardCode(canonical)).toMatch(/^[0-9a-f]{64}$/);
  });
});
