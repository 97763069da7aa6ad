import { inflateSync } from 'node:zlib';
import { DemoProvider } from './demo-provider';
import { crc32, encodePng, pngSize, sniffImage } from './png';

const NOW = Date.UTC(2025, 0, 1);
const provider = new DemoProvider({ chunkDelayMs: 0, now: () => NOW });
const generate = (json: unknown) => provider.handle({ method: 'image_generation', publicModel: 'demo-image', json });

function pngFrom(b64: string): Buffer {
  return Buffer.from(b64, 'base64');
}

/** Walks the chunks of a PNG, checking every CRC. */
function chunks(png: Buffer): Array<{ type: string; data: Buffer }> {
  const out: Array<{ type: string; data: Buffer }> = [];
  let offset = 8;
  while (offset < png.length) {
    const length = png.readUInt32BE(offset);
    const type = png.toString('latin1', offset + 4, offset + 8);
    const data = png.subarray(offset + 8, offset + 8 + length);
    expect(png.readUInt32BE(offset + 8 + length)).toBe(crc32(png.subarray(offset + 4, offset + 8 + length)));
    out.push({ type, data });
    offset += 12 + length;
  }
  return out;
}

function form(entries: Array<[string, string | Blob, string?]>): FormData {
  const data = new FormData();
  for (const [name, value, filename] of entries) {
    if (typeof value === 'string') data.append(name, value);
    else data.append(name, value, filename);
  }
  return data;
}

const tinyPng = () => new Blob([encodePng(2, 2, new Uint8Array(12).fill(200))], { type: 'image/png' });

describe('demo images', () => {
  it('generates a real PNG at the requested size, b64_json by default', async () => {
    const response = await generate({ prompt: 'a lighthouse at dusk', size: '512x512' });
    expect(response.status).toBe(200);
    const body = (await response.json()) as any;
    expect(body).toMatchObject({ created: NOW / 1000, output_format: 'png', size: '512x512' });
    expect(body.data).toHaveLength(1);
    expect(body.data[0].revised_prompt).toBe('a lighthouse at dusk');
    const png = pngFrom(body.data[0].b64_json);
    expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    expect(pngSize(png)).toEqual({ width: 512, height: 512 });
    const list = chunks(png);
    expect(list.map((c) => c.type)).toEqual(['IHDR', 'IDAT', 'IEND']);
    expect([...list[0].data.subarray(8)]).toEqual([8, 2, 0, 0, 0]);
    // The image data inflates to exactly one filter byte plus RGB per row.
    expect(inflateSync(list[1].data).length).toBe(512 * (1 + 512 * 3));
    expect(body.usage).toEqual({
      total_tokens: 5 + 64,
      input_tokens: 5,
      output_tokens: 64,
      input_tokens_details: { text_tokens: 5, image_tokens: 0 },
    });
  });

  it('is deterministic per prompt and differs between prompts and between the n images', async () => {
    const a = (await (await generate({ prompt: 'cat', size: '256x256', n: 2 })).json()) as any;
    const b = (await (await generate({ prompt: 'cat', size: '256x256', n: 2 })).json()) as any;
    const c = (await (await generate({ prompt: 'dog', size: '256x256' })).json()) as any;
    expect(a.data).toEqual(b.data);
    expect(a.data[0].b64_json).not.toBe(a.data[1].b64_json);
    expect(a.data[0].b64_json).not.toBe(c.data[0].b64_json);
  });

  it('maps auto to 1024x1024 and supports the wide and tall sizes', async () => {
    const auto = (await (await generate({ prompt: 'x', size: 'auto' })).json()) as any;
    expect(pngSize(pngFrom(auto.data[0].b64_json))).toEqual({ width: 1024, height: 1024 });
    const tall = (await (await generate({ prompt: 'x', size: '1024x1792' })).json()) as any;
    expect(pngSize(pngFrom(tall.data[0].b64_json))).toEqual({ width: 1024, height: 1792 });
  });

  it('returns data URLs for response_format url', async () => {
    const body = (await (await generate({ prompt: 'x', size: '256x256', response_format: 'url' })).json()) as any;
    expect(body.data[0].url).toMatch(/^data:image\/png;base64,/);
    expect(sniffImage(pngFrom(body.data[0].url.split(',')[1]))).toBe('png');
  });

  it('streams one image_generation.completed event when stream is true', async () => {
    const response = await generate({ prompt: 'x', size: '256x256', stream: true });
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    const text = await response.text();
    expect(text.startsWith('event: image_generation.completed\ndata: ')).toBe(true);
    const data = JSON.parse(text.split('\n')[1].slice(6));
    expect(pngSize(pngFrom(data.b64_json))).toEqual({ width: 256, height: 256 });
  });

  it.each([
    [{}, 'prompt'],
    [{ prompt: '' }, 'prompt'],
    [{ prompt: 'x', n: 5 }, 'n'],
    [{ prompt: 'x', size: '100x100' }, 'size'],
    [{ prompt: 'x', response_format: 'gif' }, 'response_format'],
  ])('rejects %j', async (json, param) => {
    const response = await generate(json);
    expect(response.status).toBe(400);
    expect(((await response.json()) as any).error).toMatchObject({ type: 'invalid_request_error', param });
  });

  describe('edits and variations', () => {
    const edit = (data: FormData) => provider.handle({ method: 'image_edit', publicModel: 'demo-image', form: data });
    const vary = (data: FormData) =>
      provider.handle({ method: 'image_variation', publicModel: 'demo-image', form: data });

    it('edits one or several images (image and image[]) into PNGs seeded by the inputs', async () => {
      const one = (await (
        await edit(
          form([
            ['image', tinyPng(), 'a.png'],
            ['prompt', 'add a hat'],
            ['size', '256x256'],
            ['n', '2'],
          ]),
        )
      ).json()) as any;
      expect(one.data).toHaveLength(2);
      expect(pngSize(pngFrom(one.data[0].b64_json))).toEqual({ width: 256, height: 256 });
      expect(one.usage.input_tokens_details.image_tokens).toBe(85);
      const jpeg = new Blob([Uint8Array.of(0xff, 0xd8, 0xff, 0xe0, 1, 2, 3)], { type: 'image/jpeg' });
      const two = (await (
        await edit(
          form([
            ['image[]', tinyPng(), 'a.png'],
            ['image[]', jpeg, 'b.jpg'],
            ['prompt', 'add a hat'],
            ['size', '256x256'],
          ]),
        )
      ).json()) as any;
      expect(two.usage.input_tokens_details.image_tokens).toBe(170);
      expect(two.data[0].b64_json).not.toBe(one.data[0].b64_json);
    });

    it('rejects non-images, missing images and a missing prompt', async () => {
      const text = new Blob(['hello'], { type: 'text/plain' });
      const bad = await edit(
        form([
          ['image', text, 'a.txt'],
          ['prompt', 'x'],
        ]),
      );
      expect(bad.status).toBe(400);
      expect(((await bad.json()) as any).error).toMatchObject({ param: 'image', code: 'invalid_image_format' });
      expect((await edit(form([['prompt', 'x']]))).status).toBe(400);
      const noPrompt = await edit(form([['image', tinyPng(), 'a.png']]));
      expect(((await noPrompt.json()) as any).error.param).toBe('prompt');
      const badMask = await edit(
        form([
          ['image', tinyPng(), 'a.png'],
          ['mask', new Blob([Uint8Array.of(0xff, 0xd8, 0xff)]), 'm.jpg'],
          ['prompt', 'x'],
        ]),
      );
      expect(((await badMask.json()) as any).error.param).toBe('mask');
    });

    it('makes variations of an uploaded image', async () => {
      const body = (await (
        await vary(
          form([
            ['image', tinyPng(), 'a.png'],
            ['n', '3'],
            ['size', '256x256'],
          ]),
        )
      ).json()) as any;
      expect(body.data).toHaveLength(3);
      expect(body.usage.input_tokens_details).toEqual({ text_tokens: 0, image_tokens: 85 });
      const wrongSize = await vary(
        form([
          ['image', tinyPng(), 'a.png'],
          ['size', '1792x1024'],
        ]),
      );
      expect(wrongSize.status).toBe(400);
    });
  });
});
