// The playground's request as code to copy: curl, the official `openai` SDK for JavaScript and for Python.
// Every snippet reads the key from SWITCHYARD_API_KEY, never from the page, and image data URLs are cut short
// (a real one is hundreds of kilobytes of base64).

export interface ChatRequestBody {
  model: string;
  messages: unknown[];
  stream?: boolean;
  stream_options?: { include_usage: boolean };
  temperature?: number;
  max_tokens?: number;
}

export interface ImageRequestBody {
  model: string;
  prompt: string;
  n?: number;
  size?: string;
  response_format?: 'url' | 'b64_json';
}

export interface SpeechRequestBody {
  model: string;
  input: string;
  voice: string;
  response_format?: string;
}

export interface EmbeddingsRequestBody {
  model: string;
  input: string | string[];
}

export interface VideoRequestBody {
  model: string;
  prompt: string;
  seconds?: string;
  size?: string;
}

export type PlaygroundRequest =
  | { kind: 'chat'; body: ChatRequestBody }
  | { kind: 'embeddings'; body: EmbeddingsRequestBody }
  | { kind: 'video'; body: VideoRequestBody }
  | { kind: 'image'; body: ImageRequestBody }
  | { kind: 'speech'; body: SpeechRequestBody }
  | { kind: 'transcription'; model: string; fileName: string; language?: string };

export const KEY_VARIABLE = 'SWITCHYARD_API_KEY';

const DATA_URL = /^data:([^;,]+);base64,.{64,}$/s;

/** A copy of the body in which each long data URL reads `data:<type>;base64,<…>`. */
export function shortenDataUrls<T>(value: T): T {
  return JSON.parse(
    JSON.stringify(value, (_key, inner: unknown) =>
      typeof inner === 'string' && DATA_URL.test(inner)
        ? inner.replace(DATA_URL, 'data:$1;base64,<BASE64_IMAGE>')
        : inner,
    ),
  ) as T;
}

/** A POSIX shell word in single quotes: a quote inside becomes '\''. */
export function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

function endpoint(request: PlaygroundRequest): string {
  switch (request.kind) {
    case 'chat':
      return '/chat/completions';
    case 'image':
      return '/images/generations';
    case 'speech':
      return '/audio/speech';
    case 'transcription':
      return '/audio/transcriptions';
    case 'embeddings':
      return '/embeddings';
    case 'video':
      return '/videos';
  }
}

function speechFile(body: SpeechRequestBody): string {
  return `speech.${body.response_format ?? 'mp3'}`;
}

export function curlSnippet(baseUrl: string, request: PlaygroundRequest): string {
  const lines = [`curl ${baseUrl}${endpoint(request)}`, `  -H "Authorization: Bearer $${KEY_VARIABLE}"`];
  if (request.kind === 'transcription') {
    lines.push(`  -F file=@${shellQuote(request.fileName)}`, `  -F model=${shellQuote(request.model)}`);
    if (request.language) lines.push(`  -F language=${shellQuote(request.language)}`);
  } else {
    lines.push('  -H "Content-Type: application/json"');
    if (request.kind === 'chat' && request.body.stream) lines.push('  -N');
    lines.push(`  -d ${shellQuote(JSON.stringify(shortenDataUrls(request.body), null, 2))}`);
    if (request.kind === 'speech') lines.push(`  --output ${speechFile(request.body)}`);
  }
  return lines.join(' \\\n');
}

function jsArguments(body: object): string {
  return JSON.stringify(shortenDataUrls(body), null, 2);
}

export function javascriptSnippet(baseUrl: string, request: PlaygroundRequest): string {
  const head = `import OpenAI from 'openai';${request.kind === 'speech' || request.kind === 'transcription' || request.kind === 'video' ? "\nimport fs from 'node:fs';" : ''}

const client = new OpenAI({
  baseURL: '${baseUrl}',
  apiKey: process.env.${KEY_VARIABLE},
});
`;
  switch (request.kind) {
    case 'chat':
      return request.body.stream
        ? `${head}
const stream = await client.chat.completions.create(${jsArguments(request.body)});
for await (const chunk of stream) {
  process.stdout.write(chunk.choices[0]?.delta?.content ?? '');
}`
        : `${head}
const completion = await client.chat.completions.create(${jsArguments(request.body)});
console.log(completion.choices[0].message.content);`;
    case 'image':
      return `${head}
const result = await client.images.generate(${jsArguments(request.body)});
// A model answers with url or b64_json: check both.
for (const image of result.data ?? []) console.log(image.url ?? \`data:image/png;base64,\${image.b64_json}\`);`;
    case 'speech':
      return `${head}
const response = await client.audio.speech.create(${jsArguments(request.body)});
fs.writeFileSync('${speechFile(request.body)}', Buffer.from(await response.arrayBuffer()));`;
    case 'embeddings':
      return `${head}
const result = await client.embeddings.create(${jsArguments(request.body)});
for (const item of result.data) console.log(item.index, item.embedding.length, 'dimensions');`;
    case 'video':
      return `${head}
// A video is a job: create it, wait until it is completed, then download it.
let video = await client.videos.create(${jsArguments(request.body)});
while (video.status === 'queued' || video.status === 'in_progress') {
  await new Promise((resolve) => setTimeout(resolve, 2000));
  video = await client.videos.retrieve(video.id);
}
const content = await client.videos.downloadContent(video.id);
fs.writeFileSync('video.mp4', Buffer.from(await content.arrayBuffer()));`;
    case 'transcription':
      return `${head}
const transcription = await client.audio.transcriptions.create({
  file: fs.createReadStream(${JSON.stringify(request.fileName)}),
  model: ${JSON.stringify(request.model)},${request.language ? `\n  language: ${JSON.stringify(request.language)},` : ''}
});
console.log(transcription.text);`;
  }
}

/** A JSON value as a Python literal: True, False and None; strings in JSON's escapes, which Python reads too. */
export function pythonLiteral(value: unknown, indent = 0): string {
  const pad = ' '.repeat(indent);
  const inner = ' '.repeat(indent + 4);
  if (value === null || value === undefined) return 'None';
  if (value === true) return 'True';
  if (value === false) return 'False';
  if (typeof value === 'number' || typeof value === 'string') return JSON.stringify(value);
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    return `[\n${value.map((item) => `${inner}${pythonLiteral(item, indent + 4)},`).join('\n')}\n${pad}]`;
  }
  const entries = Object.entries(value as Record<string, unknown>).filter(([, item]) => item !== undefined);
  if (entries.length === 0) return '{}';
  return `{\n${entries.map(([key, item]) => `${inner}${JSON.stringify(key)}: ${pythonLiteral(item, indent + 4)},`).join('\n')}\n${pad}}`;
}

function pythonKeywords(body: object): string {
  const entries = Object.entries(shortenDataUrls(body) as Record<string, unknown>).filter(
    ([, item]) => item !== undefined,
  );
  return `(\n${entries.map(([key, item]) => `    ${key}=${pythonLiteral(item, 4)},`).join('\n')}\n)`;
}

export function pythonSnippet(baseUrl: string, request: PlaygroundRequest): string {
  const head = `import os
from openai import OpenAI

client = OpenAI(base_url="${baseUrl}", api_key=os.environ["${KEY_VARIABLE}"])
`;
  switch (request.kind) {
    case 'chat':
      return request.body.stream
        ? `${head}
stream = client.chat.completions.create${pythonKeywords(request.body)}
for chunk in stream:
    if chunk.choices and chunk.choices[0].delta.content:
        print(chunk.choices[0].delta.content, end="")`
        : `${head}
completion = client.chat.completions.create${pythonKeywords(request.body)}
print(completion.choices[0].message.content)`;
    case 'image':
      return `${head}
result = client.images.generate${pythonKeywords(request.body)}
# A model answers with url or b64_json: check both.
for image in result.data:
    print(image.url or "data:image/png;base64," + image.b64_json)`;
    case 'speech':
      return `${head}
response = client.audio.speech.create${pythonKeywords(request.body)}
response.write_to_file("${speechFile(request.body)}")`;
    case 'embeddings':
      return `${head}
result = client.embeddings.create${pythonKeywords(request.body)}
for item in result.data:
    print(item.index, len(item.embedding), "dimensions")`;
    case 'video':
      return `${head}
import time

# A video is a job: create it, wait until it is completed, then download it.
video = client.videos.create${pythonKeywords(request.body)}
while video.status in ("queued", "in_progress"):
    time.sleep(2)
    video = client.videos.retrieve(video.id)
client.videos.download_content(video.id).write_to_file("video.mp4")`;
    case 'transcription':
      return `${head}
with open(${JSON.stringify(request.fileName)}, "rb") as audio:
    transcription = client.audio.transcriptions.create(
        file=audio,
        model=${JSON.stringify(request.model)},${request.language ? `\n        language=${JSON.stringify(request.language)},` : ''}
    )
print(transcription.text)`;
  }
}
