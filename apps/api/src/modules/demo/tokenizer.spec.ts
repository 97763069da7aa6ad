import { chunkTokens, countTokens, splitTokens, truncateToTokens } from './tokenizer';

describe('demo tokenizer', () => {
  it('counts words, punctuation and long words by the documented rule', () => {
    expect(countTokens('')).toBe(0);
    expect(countTokens('   \n ')).toBe(0);
    expect(countTokens('Hello, world!')).toBe(4);
    expect(countTokens('internationalization')).toBe(3); // 8 + 8 + 4 characters
    expect(countTokens('naïve café 42')).toBe(3);
    expect(countTokens('👍👍')).toBe(2);
  });

  it('splits into pieces that join back to the exact text', () => {
    for (const text of ['Hello, world!', '  leading and trailing  ', 'a\n\nb', 'x', 'emoji 👍 ok', '{"a":1}']) {
      expect(splitTokens(text).join('')).toBe(text);
      expect(splitTokens(text)).toHaveLength(countTokens(text));
    }
  });

  it('truncates on token boundaries and says whether it cut', () => {
    expect(truncateToTokens('one two three four', 2)).toEqual({ text: 'one two', truncated: true });
    expect(truncateToTokens('one two', 5)).toEqual({ text: 'one two', truncated: false });
  });

  it('groups tokens into stream chunks', () => {
    expect(chunkTokens('a b c d e', 2)).toEqual(['a b', ' c d', ' e']);
  });
});
