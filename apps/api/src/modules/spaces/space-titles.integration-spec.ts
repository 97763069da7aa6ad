import { startTestApp, TestApp, uniqueEmail } from '../../../test/support/test-app';

/**
 * A space app has a title of its own (docs/spaces.md, "Titles"): the owner's when given (at generation or by renaming
 * it, which later pages keep), else the <title> of the page the model wrote, "New app" until then; never the prompt
 * cut at 60 characters. Renaming keeps the address.
 */
describe('space app titles', () => {
  let app: TestApp;
  let token: string;
  let other: string;

  beforeAll(async () => {
    app = await startTestApp();
    const register = async (tag: string) =>
      (await app.http('/api/v1/auth/register', { body: { email: uniqueEmail(tag), password: `${tag} password` } })).body
        .data.token as string;
    token = await register('titles');
    other = await register('titles-other');
    const handle = `titles-${Date.now().toString(36)}`;
    expect((await app.http('/api/v1/spaces/handle', { method: 'PUT', token, body: { handle } })).status).toBe(200);
  });
  afterAll(() => app?.close());

  const settled = async (slug: string) => {
    const deadline = Date.now() + 20_000;
    for (;;) {
      const res = await app.http(`/api/v1/spaces/me/apps/${slug}`, { token });
      if (res.body.data?.status !== 'generating') return res.body.data;
      if (Date.now() > deadline) throw new Error(`app ${slug} still generating`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  const rename = (slug: string, title: unknown, as = token) =>
    app.http(`/api/v1/spaces/${slug}/title`, { method: 'PUT', token: as, body: { title } });
  const PROMPT =
    'Make me a counter that tracks how many cups of green tea I have had today and shows a little chart of the week';

  it('takes the owner’s title at generation and keeps it over the page’s <title>', async () => {
    const made = await app.http('/api/v1/spaces/generate', { token, body: { prompt: PROMPT, title: ' Tea tally ' } });
    expect([made.status, made.body.data.title]).toEqual([202, 'Tea tally']);
    const ready = await settled(made.body.data.slug);
    expect([ready.status, ready.title]).toEqual(['ready', 'Tea tally']);
  });

  it('is "New app" until the page names it, then the page’s own <title>, never the prompt cut short', async () => {
    const made = await app.http('/api/v1/spaces/generate', { token, body: { prompt: PROMPT } });
    expect(made.body.data.title).toBe('New app');
    const ready = await settled(made.body.data.slug);
    expect(ready.title).not.toBe('New app');
    expect(ready.title).not.toMatch(/…$/);
  });

  it('renames an app (the address stays), and an edit’s page keeps the new name; only its owner may', async () => {
    const made = await app.http('/api/v1/spaces/generate', { token, body: { prompt: PROMPT } });
    const { slug, url } = await settled(made.body.data.slug);
    const renamed = await rename(slug, 'My tea');
    expect([renamed.status, renamed.body.data.title, renamed.body.data.url]).toEqual([200, 'My tea', url]);
    expect(
      (await app.http(`/api/v1/spaces/${slug}/edit`, { method: 'PUT', token, body: { prompt: 'Make it blue' } }))
        .status,
    ).toBe(202);
    expect((await settled(slug)).title).toBe('My tea');
    expect((await app.http(`/api/v1/spaces/${slug}/undo`, { method: 'POST', token })).status).toBe(200);
    expect((await settled(slug)).title).toBe('My tea');
    expect((await rename(slug, 'Stolen', other)).status).toBe(404);
    expect((await rename('no-such-app', 'x')).status).toBe(404);
    for (const bad of ['', '   ', 'x'.repeat(101), 'tab\there', 'zero\u200bwidth', 42, null])
      expect((await rename(slug, bad)).status).toBe(400);
    expect((await app.http(`/api/v1/spaces/me/apps/${slug}`, { token })).body.data.title).toBe('My tea');
  });
});
