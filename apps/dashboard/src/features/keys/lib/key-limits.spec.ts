import {
  describeLimits,
  EMPTY_LIMIT_INPUTS,
  limitInputsFrom,
  parseExpiryDate,
  parseLimitInputs,
  visibleKeys,
} from './key-limits';

const NOW = new Date('2026-11-27T10:00:00Z');

describe('key limits as typed', () => {
  it('turns blanks into no limit and amounts into numbers', () => {
    expect(parseLimitInputs({ ...EMPTY_LIMIT_INPUTS, daily: ' 1.5 ', requestsPerMinute: '30' })).toEqual({
      ok: true,
      value: { perRequest: null, daily: 1.5, weekly: null, monthly: null, total: null, requestsPerMinute: 30 },
    });
  });

  it('says what is wrong with each bad field, in words for people', () => {
    const parsed = parseLimitInputs({
      ...EMPTY_LIMIT_INPUTS,
      daily: '-1',
      total: '2000000',
      perRequest: '0.0000001',
      requestsPerMinute: '0',
    });
    expect(parsed.ok).toBe(false);
    if (parsed.ok) return;
    expect(Object.keys(parsed.problems).sort()).toEqual(['daily', 'perRequest', 'requestsPerMinute', 'total']);
    expect(parsed.problems.daily?.[0]).toMatch(/no limit/);
    expect(parsed.problems.requestsPerMinute?.[0]).toMatch(/whole number/);
  });

  it('round-trips a key’s limits into the form', () => {
    const key = {
      limits: { total: 20, daily: null, weekly: null, monthly: 5, perRequest: 0.25 },
      requestsPerMinute: null,
    };
    const parsed = parseLimitInputs(limitInputsFrom(key));
    expect(parsed).toEqual({ ok: true, value: { ...key.limits, requestsPerMinute: null } });
    expect(describeLimits(key, (n) => `$${n}`)).toBe('$0.25 per request, $5 per month, $20 in total');
    expect(
      describeLimits(
        { limits: { ...key.limits, total: null, monthly: null, perRequest: null }, requestsPerMinute: 9 },
        String,
      ),
    ).toBe('9 requests per minute');
  });
});

describe('a key’s expiry date', () => {
  it('lets the key work through the chosen UTC day', () => {
    expect(parseExpiryDate('2026-12-31', NOW)).toEqual({ ok: true, value: '2027-01-01T00:00:00.000Z' });
    expect(parseExpiryDate('2026-11-27', NOW)).toEqual({ ok: true, value: '2026-11-28T00:00:00.000Z' });
    expect(parseExpiryDate('', NOW)).toEqual({ ok: true, value: null });
  });

  it('refuses a day that is over, one more than ten years ahead, and a date that does not exist', () => {
    for (const text of ['2026-11-26', '2037-01-01', '2026-02-30', 'next week']) {
      expect(parseExpiryDate(text, NOW).ok).toBe(false);
    }
  });
});

describe('the keys shown', () => {
  it('hides revoked keys unless asked, and keeps expired ones', () => {
    const keys = [{ status: 'Active' as const }, { status: 'Revoked' as const }, { status: 'Expired' as const }];
    expect(visibleKeys(keys, false).map((k) => k.status)).toEqual(['Active', 'Expired']);
    expect(visibleKeys(keys, true)).toHaveLength(3);
  });
});
