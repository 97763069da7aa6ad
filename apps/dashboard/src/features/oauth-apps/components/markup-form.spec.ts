import { parseMarkup } from './app-form-values';

describe('parseMarkup', () => {
  it('takes a whole percent from 0 to 300 and says why anything else is refused', () => {
    expect(parseMarkup('0')).toBe(0);
    expect(parseMarkup(' 25 ')).toBe(25);
    expect(parseMarkup('300')).toBe(300);
    expect(parseMarkup('301')).toBe('At most 300%.');
    for (const bad of ['', '-5', '12.5', '1e3', 'ten']) expect(parseMarkup(bad)).toMatch(/whole percent/);
  });
});
