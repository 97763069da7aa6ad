import { DemoProvider } from './demo-provider';

const provider = new DemoProvider({ chunkDelayMs: 0, now: () => 0 });
const SYSTEM = 'You write a single self-contained HTML page that does what the user describes.';

async function page(
  messages: Array<{ role: string; content: string }>,
  extra: Record<string, unknown> = {},
): Promise<{ text: string; finish: string }> {
  const response = await provider.handle({
    method: 'chat_completions',
    publicModel: 'demo-chat',
    json: { model: 'demo-chat', messages, ...extra },
  });
  const body = (await response.json()) as any;
  return { text: body.choices[0].message.content, finish: body.choices[0].finish_reason };
}

describe('the demo model as a page writer', () => {
  it('answers a request for a single self-contained HTML page with a whole, deterministic page that reflects it', async () => {
    const messages = [
      { role: 'system', content: SYSTEM },
      { role: 'user', content: 'Make me a counter for <b>birds</b> & bees' },
    ];
    const { text } = await page(messages);
    expect(text).toMatch(/^<!DOCTYPE html>\n<html lang="en">[\s\S]*<body>[\s\S]*<\/body>\n<\/html>$/);
    expect(text).toContain('<title>Counter for &lt;b&gt;birds&lt;/b&gt; &amp; bees</title>');
    expect(text).not.toContain('<b>birds');
    expect(text).toContain('id="add"');
    expect((await page(messages)).text).toBe(text);
  });

  it('picks what the page does from the prompt', async () => {
    const kinds: Array<[string, string]> = [
      ['A todo list for chores', 'id="tasks"'],
      ['A clock for the kitchen', 'id="clock"'],
      ['Show what this page can read: cookies and storage', 'id="probe-cookie"'],
      ['Anything else at all', 'id="count"'],
    ];
    for (const [prompt, marker] of kinds)
      expect(
        (
          await page([
            { role: 'system', content: SYSTEM },
            { role: 'user', content: prompt },
          ])
        ).text,
      ).toContain(marker);
  });

  it('revises a page it is given: a named colour becomes the accent and the change is listed', async () => {
    const { text: first } = await page([
      { role: 'system', content: SYSTEM },
      { role: 'user', content: 'A blue counter' },
    ]);
    const { text: revised } = await page([
      { role: 'system', content: SYSTEM },
      { role: 'user', content: `The current page:\n\n\`\`\`html\n${first}\n\`\`\`\n\nThe change: make it purple` },
    ]);
    expect(revised).toContain('--accent: #9333ea;');
    expect(revised).toContain('<section id="revisions-section">');
    expect(revised).toContain('<li>make it purple</li><!-- demo-revisions -->');
  });

  it('is cut by max_tokens like any answer (so a page can come back incomplete)', async () => {
    const { text, finish } = await page(
      [
        { role: 'system', content: SYSTEM },
        { role: 'user', content: 'A counter' },
      ],
      { max_tokens: 20 },
    );
    expect(finish).toBe('length');
    expect(text).not.toContain('</html>');
  });

  it('answers as before without the page request', async () => {
    expect((await page([{ role: 'user', content: 'Hello' }])).text).toMatch(/^Hello from Switchyard's demo model/);
  });
});
