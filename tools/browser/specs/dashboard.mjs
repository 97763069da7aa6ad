// The dashboard's pages against the real API and the demo catalog: the Models page (the live catalog and its
// filters, on the session's Dashboard key with nothing to create), the Playground (a streamed chat with a picture made smaller in the
// page, images, speech, transcription, the request as code), that chat in the Overview's activity and in the
// Usage analytics (chart, table, CSV), the Docs rendered from /openapi.json, and every page at desktop and phone
// width, light and dark, with screenshots.
//
// Screenshots go to tools/browser/artifacts/screenshots/ (not committed); SCREENSHOT_DIR=docs/screenshots
// refreshes the copies docs/dashboard.md links to.
import { randomBytes } from 'node:crypto';
import { mkdir, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { deflateSync } from 'node:zlib';

import { expectEqual, expectPath, expectText, expectVisible } from '../expect.mjs';
import { expectStreamedInSteps, recordReplyLengths, registerThroughForm, signInThrough } from '../flows.mjs';

export const name = 'dashboard';

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const screenshotDir = process.env.SCREENSHOT_DIR
  ? join(repoRoot, process.env.SCREENSHOT_DIR)
  : join(repoRoot, 'tools', 'browser', 'artifacts', 'screenshots');

const unique = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;
const user = { name: `Dash ${unique}`, email: `dashboard-${unique}@example.com`, password: `correct horse ${unique}` };
// The key the session's gateway calls as (docs/dashboard.md, "One playground credential").
const PLAYGROUND_KEY = 'Dashboard';
const SESSION_CREDENTIAL = 'Calls from this page use your Dashboard key';
const CHAT_TEXT = `Describe this picture ${unique}`;

// --- files made here, so the test needs no fixtures -------------------------------------------------------

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k += 1) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
function crc32(buffer) {
  let c = 0xffffffff;
  for (const byte of buffer) c = CRC_TABLE[(c ^ byte) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}
function chunk(type, data) {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

/** An RGB PNG of pseudo-random noise: noise does not compress, so 800×800 is about 1.8 MB. */
function noisePng(width, height) {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8);
  const raw = randomBytes((width * 3 + 1) * height);
  for (let row = 0; row < height; row += 1) raw[row * (width * 3 + 1)] = 0; // filter: none
  return Buffer.concat([
    Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(raw, { level: 1 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** One second of 16-bit mono silence at 8 kHz as a WAV file. */
function silentWav(seconds = 1, rate = 8000) {
  const data = Buffer.alloc(seconds * rate * 2);
  const header = Buffer.alloc(44);
  header.write('RIFF', 0);
  header.writeUInt32LE(36 + data.length, 4);
  header.write('WAVEfmt ', 8);
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(1, 22);
  header.writeUInt32LE(rate, 24);
  header.writeUInt32LE(rate * 2, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36);
  header.writeUInt32LE(data.length, 40);
  return Buffer.concat([header, data]);
}

// --- helpers ------------------------------------------------------------------------------------------------

const nav = (page) => page.getByRole('navigation', { name: 'Sections' });
const main = (page) => page.getByRole('main');

async function waitUntil(page, predicate, arg, what, timeout = 10_000) {
  await page.waitForFunction(predicate, arg, { timeout }).catch(() => {
    throw new Error(`expected ${what}`);
  });
}

/** The figure under a <dt> label. */
const figure = (page, label) => page.locator('dt', { hasText: label }).locator('xpath=following-sibling::dd');

/** Names of the model cards on the Models page. */
async function modelIds(page) {
  return page.locator('.model-card-title').allTextContents();
}

async function expectModels(page, expected, what) {
  const deadline = Date.now() + 10_000;
  let ids = [];
  while (Date.now() < deadline) {
    ids = (await modelIds(page)).sort();
    if (JSON.stringify(ids) === JSON.stringify([...expected].sort())) return;
    await page.waitForTimeout(100);
  }
  throw new Error(`expected ${what} to list ${expected.join(', ')}, got ${ids.join(', ') || 'nothing'}`);
}

async function noHorizontalScroll(page, what) {
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  if (overflow > 1) throw new Error(`expected ${what} to fit the width, but it scrolls sideways by ${overflow}px`);
}

// --- tests --------------------------------------------------------------------------------------------------

export const tests = [
  {
    name: 'a new account sees its budget and an empty activity, and browses the live catalog with no key to make',
    async run({ newPage }) {
      const page = await newPage();
      await registerThroughForm(page, user);

      // Overview: the demo catalog's sign-up credit, nothing spent, no calls.
      await expectText(figure(page, 'Remaining budget'), '$5.00');
      await expectText(figure(page, 'Spent this month'), '$0.00');
      await expectText(main(page), 'No calls yet.');

      await nav(page).getByRole('link', { name: 'Models' }).click();
      await expectPath(page, '/models');
      await expectVisible(page.getByRole('heading', { name: 'Models', level: 1 }));
      await expectText(main(page), SESSION_CREDENTIAL);

      // The live catalog, as the gateway lists it.
      await expectModels(
        page,
        ['demo-chat', 'demo-embedding', 'demo-image', 'demo-transcribe', 'demo-tts', 'demo-video'],
        'the catalog',
      );
      const chatCard = page.locator('.model-card', { has: page.getByRole('heading', { name: 'demo-chat' }) });
      await expectText(chatCard, '32,768 tokens');
      await expectText(chatCard, '$0.50 per 1M input tokens');
      await expectText(chatCard, '$1.50 per 1M output tokens');
      await expectText(chatCard, 'Vision');
      await expectText(
        page.locator('.model-card', { has: page.getByRole('heading', { name: 'demo-tts' }) }),
        '$15.00 per 1M characters',
      );

      // The gateway's filters, and the search.
      await page.getByLabel('Type').selectOption('audio');
      await expectModels(page, ['demo-transcribe', 'demo-tts'], 'the audio models');
      await page.getByLabel('Method').selectOption('audio_speech');
      await expectModels(page, ['demo-tts'], 'the speech models');
      await page.getByLabel('Type').selectOption('');
      await page.getByLabel('Method').selectOption('');
      await page.getByLabel('Capability').selectOption('vision');
      await expectModels(page, ['demo-chat'], 'the vision models');
      await page.getByLabel('Capability').selectOption('');
      await page.getByLabel('Search').fill('embed');
      await expectModels(page, ['demo-embedding'], 'the search for "embed"');
      await page.getByLabel('Search').fill('no such model');
      await expectText(main(page), 'No model matches these filters.');

      // No secret in web storage; the Dashboard key is listed on API keys, its secret never shown.
      const stored = await page.evaluate(() => localStorage.length + sessionStorage.length);
      expectEqual(stored, 0, 'the number of web storage entries');
      await nav(page).getByRole('link', { name: 'API keys' }).click();
      await expectText(
        page.locator('article', { has: page.getByRole('heading', { name: PLAYGROUND_KEY, exact: true }) }),
        'Used by the dashboard only',
      );
    },
  },
  {
    name: 'a chat streamed in the playground, with a picture made smaller in the page, shows in the activity and the analytics',
    async run({ newPage }) {
      const page = await newPage({ acceptDownloads: true });
      await signInThrough(page, user, '/playground');
      await expectText(main(page), SESSION_CREDENTIAL);
      await expectVisible(page.getByRole('tab', { name: 'Chat', selected: true }), { what: 'the selected Chat tab' });

      // A 1.8 MB picture: sent as a JPEG of at most 800 KB.
      const png = noisePng(800, 800);
      if (png.length < 1_000_000) throw new Error(`expected a large test picture, got ${png.length} bytes`);
      await page
        .getByLabel('Image (optional)')
        .setInputFiles({ name: 'noise.png', mimeType: 'image/png', buffer: png });
      await expectText(main(page), '(made smaller from 1.8 MB)');
      const attachment = await page.locator('.attachment img').getAttribute('src');
      const bytes = Math.floor(((attachment ?? '').split(',')[1] ?? '').length * 0.75);
      // Not shrunk further than it had to be, either.
      if (!attachment?.startsWith('data:image/jpeg;base64,') || bytes > 800 * 1024 || bytes < 400 * 1024) {
        throw new Error(
          `expected a JPEG data URL of 400 to 800 KB, got ${attachment?.slice(0, 30)}… of ${bytes} bytes`,
        );
      }

      await page.getByRole('textbox', { name: 'Message' }).fill(CHAT_TEXT);
      // The curl and SDK code follow the form; the picture's base64 is cut short there.
      const code = page.locator('.request-code pre');
      await expectText(code, '/v1/chat/completions');
      await expectText(code, CHAT_TEXT);
      await expectText(code, 'data:image/jpeg;base64,<BASE64_IMAGE>');
      await page.getByRole('tab', { name: 'JavaScript' }).click();
      await expectText(code, 'for await (const chunk of stream)');
      await page.keyboard.press('ArrowRight');
      await expectVisible(page.getByRole('tab', { name: 'Python', selected: true }), {
        what: 'the Python tab after ArrowRight',
      });
      await expectText(code, 'from openai import OpenAI');

      // Record every length the reply passes through: a stream grows in steps, a plain answer appears at once.
      await recordReplyLengths(page);
      await page.getByRole('button', { name: 'Send' }).click();
      const reply = page.locator('.chat-turn-assistant').last();
      await expectText(reply, `You said: "${CHAT_TEXT}"`);
      await expectText(reply, 'I also received 1 attachment');
      await expectText(reply, 'tokens · $0.000');
      await expectVisible(page.locator('.chat-turn-user img[alt="Attached: noise.png"]'), {
        what: 'the picture in the conversation',
      });
      const calls = await expectStreamedInSteps(page, CHAT_TEXT, { clear: true }); // counted below

      // The Overview's activity table has the call, named after the key.
      await nav(page).getByRole('link', { name: 'Overview' }).click();
      await expectPath(page, '/');
      const row = page.locator('tbody tr', { has: page.getByRole('rowheader', { name: PLAYGROUND_KEY }) }).last(); // the oldest: the chat with the picture
      await expectVisible(row, { what: 'the chat in the recent activity' });
      await expectText(row, 'demo-chat');
      const tokens = Number((await row.locator('td').nth(2).textContent()).replace(/,/g, ''));
      if (!(tokens > 85)) throw new Error(`expected the call's tokens (the picture alone counts 85), got ${tokens}`);
      await expectText(row.locator('td').nth(3), '$0.000');
      await expectText(figure(page, 'Calls this month'), String(calls));

      // Usage analytics: by day (chart and table), by model, by key; and the CSV file.
      await nav(page).getByRole('link', { name: 'Usage' }).click();
      await expectPath(page, '/usage');
      await expectText(figure(page, 'Requests'), String(calls));
      await expectVisible(page.locator('.chart svg.recharts-surface'), { what: 'the chart' });
      const today = new Date().toISOString().slice(0, 10);
      await expectVisible(page.getByRole('rowheader', { name: today }), { what: `today's row (${today})` });
      await page.getByLabel('Group by').selectOption('model');
      const modelRow = page.locator('tbody tr', { has: page.getByRole('rowheader', { name: 'demo-chat' }) });
      await expectVisible(modelRow, { what: 'the demo-chat row' });
      expectEqual(
        (await modelRow.locator('td').first().textContent()).trim(),
        String(calls),
        'the requests of demo-chat',
      );
      await page.getByLabel('Group by').selectOption('key');
      await expectVisible(page.getByRole('rowheader', { name: PLAYGROUND_KEY }), { what: 'the key row' });

      const [download] = await Promise.all([
        page.waitForEvent('download', { timeout: 10_000 }),
        page.getByRole('button', { name: 'Export CSV' }).click(),
      ]);
      expectEqual(
        download.suggestedFilename().replace(/\d{4}-\d{2}-\d{2}/g, 'D'),
        'switchyard-usage-by-key-D-to-D.csv',
        'the CSV file name',
      );
      const csv = await readFile(await download.path(), 'utf8');
      const lines = csv.trimEnd().split('\r\n');
      expectEqual(
        lines[0],
        'API key,Requests,Prompt tokens,Completion tokens,Total tokens,Cost (USD)',
        'the CSV header',
      );
      if (!lines[1]?.startsWith(`${PLAYGROUND_KEY},${calls},`))
        throw new Error(`expected the key's line in the CSV, got ${JSON.stringify(lines[1])}`);

      // A range that ends before today has no calls; a reversed range is explained.
      await page.getByLabel('From').fill('2020-01-01');
      await page.getByLabel('To').fill('2020-01-31');
      await expectText(main(page), 'No calls in this range');
      await page.getByLabel('From').fill('2020-02-01');
      await expectText(page.getByRole('alert'), 'The start date must not be after the end date.');
    },
  },
  {
    name: 'the playground generates images (url and b64_json), plays speech and transcribes an upload',
    async run({ newPage }) {
      const page = await newPage();
      await signInThrough(page, user, '/playground');
      await expectText(main(page), SESSION_CREDENTIAL);

      // Arrow keys move between the tabs (one tab stop), and the address follows.
      await page.getByRole('tab', { name: 'Chat' }).focus();
      await page.keyboard.press('ArrowRight');
      await expectVisible(page.getByRole('tab', { name: 'Image', selected: true }), { what: 'the Image tab selected' });
      await expectPath(page, '/playground?task=image');
      expectEqual(await page.evaluate(() => document.activeElement?.textContent), 'Image', 'the focused tab');

      const imagePanel = page.getByRole('tabpanel', { name: 'Image' });
      await imagePanel.getByLabel('Prompt').fill('A lighthouse at dawn');
      await imagePanel.getByLabel('Size').selectOption('256x256');
      await imagePanel.getByLabel('Answer as').selectOption('url');
      await imagePanel.getByRole('button', { name: 'Generate' }).click();
      await expectText(imagePanel, 'Came as url');
      await expectText(imagePanel, '$0.01');
      await imagePanel.getByLabel('Answer as').selectOption('b64_json');
      await imagePanel.getByRole('button', { name: 'Generate' }).click();
      await expectText(imagePanel, 'Came as b64_json');
      await waitUntil(
        page,
        () => {
          const image = document.querySelector('.image-result img');
          return image instanceof HTMLImageElement && image.complete && image.naturalWidth === 256;
        },
        undefined,
        'the generated 256×256 picture to be shown',
      );

      await page.getByRole('tab', { name: 'Speech' }).click();
      const speechPanel = page.getByRole('tabpanel', { name: 'Speech' });
      await speechPanel.getByLabel('Text').fill('Hello from the browser test.');
      await speechPanel.getByLabel('Format').selectOption('wav');
      await speechPanel.getByRole('button', { name: 'Speak' }).click();
      await expectText(speechPanel, 'The audio is ready');
      await waitUntil(
        page,
        () => {
          const audio = document.querySelector('.audio-player');
          return (
            audio instanceof HTMLAudioElement &&
            audio.src.startsWith('blob:') &&
            audio.readyState >= 1 &&
            audio.duration > 0
          );
        },
        undefined,
        'the audio player to load the speech',
      );

      await page.getByRole('tab', { name: 'Transcription' }).click();
      const transcriptionPanel = page.getByRole('tabpanel', { name: 'Transcription' });
      await transcriptionPanel
        .getByLabel('Audio file')
        .setInputFiles({ name: 'memo.wav', mimeType: 'audio/wav', buffer: silentWav(1) });
      await expectText(transcriptionPanel.locator('pre'), "-F file=@'memo.wav'");
      await transcriptionPanel.getByRole('button', { name: 'Transcribe' }).click();
      await expectText(transcriptionPanel.locator('.transcript'), 'Demo transcription of memo.wav');
      await expectText(transcriptionPanel.locator('.transcript'), 'The audio lasts 1');

      // Each tab keeps its state while another is shown.
      await page.getByRole('tab', { name: 'Image' }).click();
      await expectText(imagePanel, 'Came as b64_json');
    },
  },
  {
    name: 'the docs show the quick start, the Anthropic API with Claude Code and Codex, the Gemini API with its CLI, the OAuth steps and every endpoint of /openapi.json',
    async run({ newPage, baseUrl }) {
      const document = await (await fetch(`${baseUrl}/openapi.json`, { signal: AbortSignal.timeout(10_000) })).json();
      const operations = Object.values(document.paths).reduce(
        (sum, item) =>
          sum + Object.keys(item).filter((method) => ['get', 'post', 'put', 'patch', 'delete'].includes(method)).length,
        0,
      );

      const page = await newPage();
      await signInThrough(page, user, '/docs');
      await expectVisible(page.getByRole('heading', { name: 'Quick start with an API key', level: 2 }));
      await expectVisible(page.getByRole('heading', { name: 'Sign in with Switchyard: OAuth 2 with PKCE', level: 2 }));
      await expectText(page.locator('#quick-start'), `${baseUrl}/v1`);
      await expectText(page.locator('#anthropic'), `ANTHROPIC_BASE_URL=${baseUrl}`);
      await expectText(page.locator('#anthropic'), 'x-api-key');
      // The Codex recipe tools/agents/run.mjs runs, with this server's origin.
      await expectText(page.locator('#anthropic'), `base_url = "${baseUrl}/v1"`);
      await expectText(page.locator('#anthropic'), 'web_search = "disabled"');
      await expectText(page.locator('#gemini'), `GOOGLE_GEMINI_BASE_URL=${baseUrl}`);
      await expectText(page.locator('#gemini'), 'x-goog-api-key');
      await expectText(page.locator('#oauth'), "crypto.subtle.digest('SHA-256'");
      await expectText(page.locator('#oauth'), 'X-Service-OAuth-Client-Id');
      await expectText(page.locator('#endpoints'), `${operations} of ${operations} endpoints`);
      await page.getByLabel('Find an endpoint').fill('chat/completions');
      await expectText(page.locator('#endpoints'), `1 of ${operations} endpoints`);
      const endpoint = page.locator('details.endpoint', { hasText: '/v1/chat/completions' });
      await endpoint.locator('summary').click();
      await expectText(endpoint, 'Access: API key or OAuth access token');
      await expectText(endpoint, 'model_not_found');
      await expectText(page.locator('#errors'), 'budget_exhausted');
      await expectText(page.locator('#limits'), 'about 800 KB before base64');
      // The contents link to the sections.
      await page.getByRole('navigation', { name: 'On this page' }).getByRole('link', { name: 'Limits' }).click();
      await expectPath(page, (url) => url.hash === '#limits');
    },
  },
  ...[
    { label: 'desktop', viewport: { width: 1280, height: 900 }, colorScheme: 'light' },
    { label: 'phone', viewport: { width: 390, height: 844 }, colorScheme: 'dark', isMobile: true, hasTouch: true },
  ].map((device) => ({
    name: `every page fits a ${device.label} screen (${device.viewport.width} px, ${device.colorScheme}), with screenshots`,
    async run({ newPage }) {
      const { label, ...options } = device;
      const page = await newPage(options);
      await signInThrough(page, user, '/models');
      await expectText(main(page), SESSION_CREDENTIAL);
      await mkdir(screenshotDir, { recursive: true });

      const pages = [
        ['/', 'overview', 'Recent activity'],
        ['/keys', 'keys', 'Your keys'],
        ['/apps', 'oauth-apps', 'OAuth apps'],
        ['/authorized-apps', 'authorized-apps', 'Authorized apps'],
        ['/usage', 'usage', 'By day'],
        ['/models', 'models', 'demo-chat'],
        ['/playground', 'playground', 'This request as code'],
        ['/billing', 'billing', 'Available balance'],
        ['/docs', 'docs', 'endpoints'],
      ];
      for (const [path, file, ready] of pages) {
        await page.goto(path);
        await expectText(main(page), ready);
        await waitUntil(
          page,
          () => !document.querySelector('main')?.textContent?.includes('Loading'),
          undefined,
          `${path} to finish loading`,
        );
        if (path === '/usage') await expectVisible(page.locator('.chart svg.recharts-surface'), { what: 'the chart' });
        if (path === '/playground') {
          await page.getByRole('textbox', { name: 'Message' }).fill('What can you do?');
          await page.getByRole('button', { name: 'Send' }).click();
          await expectText(page.locator('.chat-turn-assistant').last(), 'tokens ·');
        }
        await noHorizontalScroll(page, `${path} at ${device.viewport.width} px`);
        await page.evaluate(() => window.scrollTo(0, 0));
        await page.screenshot({ path: join(screenshotDir, `${file}-${label}.png`), fullPage: file !== 'docs' });
      }
      if (device.colorScheme === 'dark') {
        const background = await page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor);
        expectEqual(background, 'rgb(17, 20, 24)', 'the page background in dark mode');
      }
    },
  })),
];
