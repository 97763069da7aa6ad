import {
  activityQuery,
  filtersProblem,
  filtersSet,
  formatDuration,
  moneyReason,
  NO_FILTERS,
  statusWords,
} from './request-filters';

describe('the Requests filters', () => {
  it('send only the filters that are set, the model trimmed', () => {
    expect(activityQuery(NO_FILTERS, 25, null)).toEqual({
      limit: 25,
      cursor: undefined,
      keyId: undefined,
      appId: undefined,
      model: undefined,
      status: undefined,
      from: undefined,
      to: undefined,
    });
    const set = { ...NO_FILTERS, keyId: 'k1', model: '  demo-chat ', status: 'error' as const, to: '2026-11-30' };
    expect(activityQuery(set, 25, 'next')).toMatchObject({
      cursor: 'next',
      keyId: 'k1',
      model: 'demo-chat',
      status: 'error',
      to: '2026-11-30',
    });
    expect(activityQuery({ ...NO_FILTERS, model: '   ' }, 25, null).model).toBeUndefined();
  });

  it('say what is wrong with a range before asking the API', () => {
    expect(filtersProblem(NO_FILTERS)).toBeNull();
    expect(filtersProblem({ ...NO_FILTERS, from: '2026-11-01', to: '2026-11-01' })).toBeNull();
    expect(filtersProblem({ ...NO_FILTERS, from: '2026-11-02', to: '2026-11-01' })).toMatch(/start date/);
    expect(filtersProblem({ ...NO_FILTERS, from: '2026-02-30' })).toMatch(/start date/);
    expect(filtersProblem({ ...NO_FILTERS, to: '2026-11' })).toMatch(/end date/);
    expect(filtersProblem({ ...NO_FILTERS, model: 'm'.repeat(201) })).toMatch(/200/);
  });

  it('tell whether any filter is set', () => {
    expect(filtersSet(NO_FILTERS)).toBe(false);
    expect(filtersSet({ ...NO_FILTERS, appId: 'app' })).toBe(true);
  });
});

describe('the Requests values in words', () => {
  it('name statuses, and show an unknown one readably', () => {
    expect(statusWords('success')).toBe('Succeeded');
    expect(statusWords('upstream_error')).toBe('Provider error');
    expect(statusWords('something_new')).toBe('something new');
  });

  it('show durations in ms below a second, else in seconds; unknown as a dash', () => {
    expect(formatDuration(0)).toBe('0 ms');
    expect(formatDuration(340.4)).toBe('340 ms');
    expect(formatDuration(1234)).toBe('1.23 s');
    expect(formatDuration(12_345)).toBe('12.3 s');
    expect(formatDuration(null)).toBe('—');
  });

  it('explain the money trace', () => {
    const money = { reserved: 0.01, charged: 0.002, released: 0.008, markup: null, sponsored: 0 };
    expect(moneyReason({ ...money, outcome: 'settled', reason: 'success' })).toMatch(/rest of the hold was released/);
    expect(moneyReason({ ...money, outcome: 'released', reason: 'upstream_error' })).toMatch(/provider failed/);
    expect(moneyReason({ ...money, outcome: 'open', reason: null })).toMatch(/Still held/);
    expect(
      moneyReason({ reserved: 0, charged: 0, released: 0, outcome: 'none', reason: null, markup: null, sponsored: 0 }),
    ).toMatch(/Nothing/);
    expect(moneyReason({ ...money, outcome: 'settled', reason: 'odd_case' })).toBe('Settled (odd case).');
  });
});
