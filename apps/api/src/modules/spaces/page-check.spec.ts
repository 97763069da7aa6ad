import { checkPage, slugCandidate, slugFromPrompt, titleFromPrompt, titleOf } from './page-check';

const PAGE = '<!DOCTYPE html>\n<html><head><title>Hi &amp; bye</title></head><body><p>x</p></body></html>';

describe('checking a model’s page before it is hosted', () => {
  it('takes a whole document as it is', () => {
    expect(checkPage(PAGE)).toEqual({ ok: true, html: PAGE, title: 'Hi & bye' });
  });

  it('takes the page out of a markdown fence and drops the talk around it', () => {
    expect(checkPage(`Sure! Here it is:\n\n\`\`\`html\n${PAGE}\n\`\`\`\n\nLet me know.`)).toMatchObject({
      ok: true,
      html: PAGE,
    });
    expect(checkPage(`\`\`\`\n${PAGE}\n\`\`\``)).toMatchObject({ ok: true, html: PAGE });
    expect(checkPage(`Notes first:\n\`\`\`css\nbody{}\n\`\`\`\n\`\`\`html\n${PAGE}\n\`\`\``)).toMatchObject({
      ok: true,
      html: PAGE,
    });
  });

  it('adds a missing doctype and trims what comes before and after', () => {
    expect(checkPage('Here: <html><body>x</body></html> done')).toMatchObject({
      ok: true,
      html: '<!DOCTYPE html>\n<html><body>x</body></html>',
    });
  });

  it('refuses prose, a page without a body, a page cut off, and one over 512 KB', () => {
    expect(checkPage('Hello from the model')).toEqual({
      ok: false,
      reason: expect.stringContaining('did not write an HTML page'),
    });
    expect(checkPage('<html><head></head></html>')).toEqual({
      ok: false,
      reason: expect.stringContaining('did not write an HTML page'),
    });
    expect(checkPage('<!DOCTYPE html><html><body><p>unfinished')).toEqual({
      ok: false,
      reason: expect.stringContaining('cut off'),
    });
    const big = `<!DOCTYPE html><html><body>${'x'.repeat(512 * 1024)}</body></html>`;
    expect(checkPage(big)).toEqual({ ok: false, reason: expect.stringContaining('limited to 512 KB') });
  });

  it('reads a title, or finds none', () => {
    expect(titleOf('<title>\n  A  &lt;b&gt; title </title>')).toBe('A <b> title');
    expect(titleOf('<html></html>')).toBeNull();
    expect(titleOf('<title> </title>')).toBeNull();
  });
});

describe('naming an app', () => {
  it('makes a readable slug from the prompt', () => {
    expect(slugFromPrompt('Make me a todo list for my garden, please!')).toBe('todo-list-garden');
    expect(slugFromPrompt('Crème brûlée timer')).toBe('creme-brulee-timer');
    expect(slugFromPrompt('Help')).toBe('help-app');
    expect(slugFromPrompt('日本語のアプリ')).toBe('untitled');
    expect(slugFromPrompt('a'.repeat(60))).toBe('untitled');
    expect(slugFromPrompt('supercalifragilistic expialidocious wonderful words')).toBe(
      'supercalifragilistic-expialidocious',
    );
  });

  it('numbers a slug that is taken, within 40 characters', () => {
    expect(slugCandidate('todo', 1)).toBe('todo');
    expect(slugCandidate('todo', 2)).toBe('todo-2');
    expect(slugCandidate('x'.repeat(40), 12)).toBe(`${'x'.repeat(37)}-12`);
  });

  it('titles an app from the prompt’s first sentence until its page has a title', () => {
    expect(titleFromPrompt('a counter. With a reset button.')).toBe('A counter.');
    expect(titleFromPrompt('x'.repeat(80))).toBe(`${'X'}${'x'.repeat(58)}…`);
  });
});
