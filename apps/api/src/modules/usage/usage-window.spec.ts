import { splitWindow, usageSource } from './usage-window';

const at = (iso: string) => new Date(iso);

describe('splitWindow', () => {
  it('reads a day-aligned window from the rollups alone', () => {
    expect(splitWindow(at('2026-10-01T00:00:00Z'), at('2026-10-31T00:00:00Z'))).toEqual({
      days: { from: '2026-10-01', to: '2026-10-31' },
      edges: [],
    });
  });

  it('reads the partial days at both ends from the raw rows', () => {
    expect(splitWindow(at('2026-10-01T05:00:00Z'), at('2026-10-04T12:00:00Z'))).toEqual({
      days: { from: '2026-10-02', to: '2026-10-04' },
      edges: [
        { from: at('2026-10-01T05:00:00Z'), to: at('2026-10-02T00:00:00Z') },
        { from: at('2026-10-04T00:00:00Z'), to: at('2026-10-04T12:00:00Z') },
      ],
    });
  });

  it('reads a window shorter than a whole day, or inside one, from the raw rows', () => {
    expect(splitWindow(at('2026-10-01T05:00:00Z'), at('2026-10-01T06:00:00Z'))).toEqual({
      days: null,
      edges: [{ from: at('2026-10-01T05:00:00Z'), to: at('2026-10-01T06:00:00Z') }],
    });
    expect(splitWindow(at('2026-10-01T05:00:00Z'), at('2026-10-02T06:00:00Z'))).toEqual({
      days: null,
      edges: [{ from: at('2026-10-01T05:00:00Z'), to: at('2026-10-02T06:00:00Z') }],
    });
  });

  it('reads nothing for an empty or reversed window', () => {
    expect(splitWindow(at('2026-10-02T00:00:00Z'), at('2026-10-02T00:00:00Z'))).toEqual({ days: null, edges: [] });
    expect(splitWindow(at('2026-10-03T00:00:00Z'), at('2026-10-02T00:00:00Z'))).toEqual({ days: null, edges: [] });
  });
});

describe('usageSource', () => {
  const parts = { days: (a: string, b: string) => `days ${a} ${b}`, raw: (a: string, b: string) => `raw ${a} ${b}` };

  it('numbers its parameters after the ones already given', () => {
    const params: unknown[] = ['user'];
    const sql = usageSource(splitWindow(at('2026-10-01T05:00:00Z'), at('2026-10-03T00:00:00Z')), parts, params);
    expect(params).toEqual([
      'user',
      '2026-10-02',
      '2026-10-03',
      at('2026-10-01T05:00:00Z'),
      at('2026-10-02T00:00:00Z'),
    ]);
    expect(sql).toBe('days $2::date $3::date UNION ALL raw $4 $5');
  });

  it('is null for an empty window', () => {
    expect(usageSource({ days: null, edges: [] }, parts, [])).toBeNull();
  });
});
