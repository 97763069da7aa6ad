import { curlSnippet, javascriptSnippet, pythonLiteral, pythonSnippet, shellQuote, shortenDataUrls } from './snippets';
import type { PlaygroundRequest } from './snippets';

const BASE = 'https://gw.example/v1';
const image = `data:image/jpeg;base64,${'A'.repeat(200)}`;
const chat: PlaygroundRequest = {
  kind: 'chat',
  body: {
    model: 'demo-chat',
    messages: [
      {
        role: 'user',
        content: [
          { type: 'text', text: "It's here" },
          { type: 'image_url', image_url: { url: image } },
        ],
      },
    ],
    stream: true,
    stream_options: { include_usage: true },
  },
};

describe('request snippets', () => {
  it('cuts image data URLs short and leaves other strings alone', () => {
    expect(shortenDataUrls({ a: image, b: 'data:x', c: ['keep'] })).toEqual({
      a: 'data:image/jpeg;base64,<BASE64_IMAGE>',
      b: 'data:x',
      c: ['keep'],
    });
  });

  it('quotes shell words, a single quote included', () => {
    expect(shellQuote("It's")).toBe(`'It'\\''s'`);
  });

  it('writes curl for a streamed chat with the key from the environment', () => {
    const curl = curlSnippet(BASE, chat);
    expect(curl.split(' \\\n')[0]).toBe('curl https://gw.example/v1/chat/completions');
    expect(curl).toContain('-H "Authorization: Bearer $SWITCHYARD_API_KEY"');
    expect(curl).toContain('  -N');
    expect(curl).toContain(`"text": "It'\\''s here"`);
    expect(curl).toContain('<BASE64_IMAGE>');
    expect(curl).not.toContain('AAAA');
  });

  it('writes curl with a multipart upload for a transcription, and an output file for speech', () => {
    expect(
      curlSnippet(BASE, { kind: 'transcription', model: 'demo-transcribe', fileName: 'memo.wav', language: 'en' }),
    ).toBe(
      [
        'curl https://gw.example/v1/audio/transcriptions',
        '  -H "Authorization: Bearer $SWITCHYARD_API_KEY"',
        "  -F file=@'memo.wav'",
        "  -F model='demo-transcribe'",
        "  -F language='en'",
      ].join(' \\\n'),
    );
    const speech = curlSnippet(BASE, {
      kind: 'speech',
      body: { model: 'demo-tts', input: 'Hi', voice: 'alloy', response_format: 'wav' },
    });
    expect(speech.endsWith('--output speech.wav')).toBe(true);
  });

  it('writes JavaScript SDK code that streams the chat', () => {
    const code = javascriptSnippet(BASE, chat);
    expect(code).toContain("baseURL: 'https://gw.example/v1'");
    expect(code).toContain('apiKey: process.env.SWITCHYARD_API_KEY');
    expect(code).toContain('for await (const chunk of stream)');
    expect(code).toContain('"include_usage": true');
  });

  it('writes image code that checks both url and b64_json', () => {
    const request: PlaygroundRequest = {
      kind: 'image',
      body: { model: 'demo-image', prompt: 'A lighthouse', n: 1, size: '256x256', response_format: 'b64_json' },
    };
    expect(javascriptSnippet(BASE, request)).toContain('image.url ?? `data:image/png;base64,${image.b64_json}`');
    expect(pythonSnippet(BASE, request)).toContain('image.url or "data:image/png;base64," + image.b64_json');
  });

  it('writes Python with keyword arguments and Python literals', () => {
    expect(pythonLiteral({ a: true, b: null, c: [1, 'x'], d: false })).toBe(
      '{\n    "a": True,\n    "b": None,\n    "c": [\n        1,\n        "x",\n    ],\n    "d": False,\n}',
    );
    const code = pythonSnippet(BASE, chat);
    expect(code).toContain(
      'client = OpenAI(base_url="https://gw.example/v1", api_key=os.environ["SWITCHYARD_API_KEY"])',
    );
    expect(code).toContain('    model="demo-chat",');
    expect(code).toContain('    stream=True,');
    expect(code).toContain('for chunk in stream:');
  });

  it('writes SDK code that uploads a file for a transcription', () => {
    const request: PlaygroundRequest = { kind: 'transcription', model: 'demo-transcribe', fileName: 'memo.wav' };
    expect(javascriptSnippet(BASE, request)).toContain('file: fs.createReadStream("memo.wav")');
    expect(pythonSnippet(BASE, request)).toContain('with open("memo.wav", "rb") as audio:');
  });
});

describe('the embeddings and video tabs’ code', () => {
  it('embeds one or many texts with the SDK and curl', () => {
    const request: PlaygroundRequest = { kind: 'embeddings', body: { model: 'demo-embedding', input: ['a', 'b'] } };
    expect(curlSnippet(BASE, request)).toContain(`${BASE}/embeddings`);
    expect(javascriptSnippet(BASE, request)).toContain('client.embeddings.create(');
    expect(pythonSnippet(BASE, request)).toContain('client.embeddings.create(\n    model="demo-embedding"');
  });

  it('makes a video as a job: create, wait, download', () => {
    const request: PlaygroundRequest = {
      kind: 'video',
      body: { model: 'demo-video', prompt: 'a boat', seconds: '4', size: '1280x720' },
    };
    expect(curlSnippet(BASE, request)).toContain(`${BASE}/videos`);
    const js = javascriptSnippet(BASE, request);
    expect(js).toContain("import fs from 'node:fs';");
    expect(js).toContain('client.videos.create(');
    expect(js).toContain('client.videos.retrieve(video.id)');
    expect(js).toContain('client.videos.downloadContent(video.id)');
    const py = pythonSnippet(BASE, request);
    expect(py).toContain('client.videos.retrieve(video.id)');
    expect(py).toContain('download_content(video.id).write_to_file("video.mp4")');
  });
});
