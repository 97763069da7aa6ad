import { pastedKeyProblem } from './key-store';

describe('a pasted API key is checked at once', () => {
  it('accepts a key of the right form', () => {
    expect(pastedKeyProblem(`  sy-${'aB3'.repeat(16)}  `)).toBeNull();
  });

  it('explains, for people, what is wrong with anything else', () => {
    expect(pastedKeyProblem('')).toMatch(/Paste one of your API keys/);
    expect(pastedKeyProblem(`Bearer sy-${'a'.repeat(48)}`)).toMatch(/without “Bearer”/);
    expect(pastedKeyProblem(`sys_${'a'.repeat(43)}`)).toMatch(/session, not an API key/);
    expect(pastedKeyProblem('sy-abc def')).toMatch(/no spaces/);
    expect(pastedKeyProblem('sy-tooShort')).toMatch(/does not look like an API key/);
    expect(pastedKeyProblem(`sy-${'a'.repeat(47)}!`)).toMatch(/does not look like an API key/);
  });
});
