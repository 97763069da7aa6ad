/**
 * The requests of the fuzz test (test/fuzz.e2e-spec.ts): every route of the OpenAPI document plus the
 * gateway's aliases and the pages outside the API, each request built from its own seeded generator, so request N
 * is the same whatever order the requests run in.
 */
import { seededRandom } from '../../src/modules/demo';

export interface FuzzCredentials {
  /** A dashboard session (Bearer on /api/v1). */
  session: string;
  /** The same session as cookies (with its CSRF cookie). */
  sessionCookie: string;
  apiKey: string;
  oauthToken: string;
  oauthClientId: string;
}

export interface FuzzRequest {
  index: number;
  /** `METHOD template` of the route it was made from. */
  route: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: Buffer;
  /** What was done to it, for the failure list. */
  label: string;
}

type BodyKind = 'json' | 'multipart' | 'form' | 'none';

interface Route {
  method: string;
  template: string;
  body: BodyKind;
  sample: Record<string, unknown> | null;
}

interface OpenApiDocument {
  paths: Record<string, Record<string, { requestBody?: { content: Record<string, { schema?: Schema }> } }>>;
  components?: { schemas?: Record<string, Schema> };
}

interface Schema {
  $ref?: string;
  type?: string;
  format?: string;
  enum?: unknown[];
  minimum?: number;
  minLength?: number;
  properties?: Record<string, Schema>;
  items?: Schema;
  oneOf?: Schema[];
}

class Dice {
  constructor(private readonly next: () => number) {}
  chance(p: number): boolean {
    return this.next() < p;
  }
  int(max: number): number {
    return Math.floor(this.next() * max);
  }
  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)];
  }
}

/** A plausible value for a JSON schema, so that mutations start from something the route would accept. */
function sampleOf(schema: Schema | undefined, document: OpenApiDocument, depth = 0): unknown {
  if (!schema || depth > 5) return 'x';
  if (schema.$ref) {
    const name = schema.$ref.split('/').pop()!;
    const target = document.components?.schemas?.[name];
    if (target && name !== 'Array') return sampleOf(target, document, depth + 1);
  }
  if (schema.oneOf?.length) return sampleOf(schema.oneOf[0], document, depth + 1);
  if (schema.enum?.length) return schema.enum[0];
  switch (schema.type) {
    case 'object':
      return Object.fromEntries(
        Object.entries(schema.properties ?? {}).map(([name, property]) => [
          name,
          sampleOf(property, document, depth + 1),
        ]),
      );
    case 'array':
      return [sampleOf(schema.items ?? { type: 'string' }, document, depth + 1)];
    case 'integer':
    case 'number':
      return Math.max(schema.minimum ?? 1, 1);
    case 'boolean':
      return true;
    default:
      if (schema.format === 'email') return 'fuzz@example.com';
      if (schema.format?.startsWith('date')) return '2026-12-01';
      return 'fuzz-value'.padEnd(schema.minLength ?? 0, 'x');
  }
}

/** Bodies the gateway's demo catalog would serve, to mutate from. */
const GATEWAY_SAMPLES: Record<string, Record<string, unknown>> = {
  '/chat/completions': { model: 'demo-chat', messages: [{ role: 'user', content: 'Hi' }], max_tokens: 5 },
  '/completions': { model: 'demo-chat', prompt: 'Hi', max_tokens: 5 },
  '/responses': { model: 'demo-chat', input: 'Hi', max_output_tokens: 5 },
  '/embeddings': { model: 'demo-embedding', input: ['a', 'b'] },
  '/images/generations': { model: 'demo-image', prompt: 'a cat', n: 1, size: '256x256' },
  '/audio/speech': { model: 'demo-tts', input: 'Hi', voice: 'alloy' },
  '/videos': { model: 'demo-video', prompt: 'a wave', seconds: '4' },
  '/videos/{id}/remix': { prompt: 'calmer' },
  '/images/edits': { model: 'demo-image', prompt: 'a hat' },
  '/images/variations': { model: 'demo-image', n: 1 },
  '/audio/transcriptions': { model: 'demo-transcribe' },
};

const OAUTH_FORM_PATHS = ['/oauth2/token', '/oauth2/revoke', '/oauth2/introspect'];
const OAUTH_FORM_SAMPLES: Record<string, Record<string, unknown>> = {
  '/oauth2/token': {
    grant_type: 'authorization_code',
    code: 'abc',
    redirect_uri: 'http://127.0.0.1:8765/callback',
    client_id: 'x',
    code_verifier: 'v'.repeat(43),
  },
  '/oauth2/revoke': { token: 'abc', token_type_hint: 'refresh_token', client_id: 'x' },
  '/oauth2/introspect': { token: 'abc', client_id: 'x', client_secret: 'y' },
};

/** Paths outside the API document: hosted spaces, profiles, the dashboard's pages and files, operations. */
const EXTRA_ROUTES: Route[] = [
  ...[
    '/',
    '/keys',
    '/billing',
    '/login',
    '/register',
    '/consent',
    '/spaces',
    '/playground',
    '/assets/index.js',
    '/favicon.ico',
    '/u/{handle}',
    '/metrics',
    '/openapi.json',
  ].map((template) => ({ method: 'GET', template, body: 'none' as const, sample: null })),
  { method: 'GET', template: '/api/v1/payment/sandbox/{id}', body: 'none', sample: null },
  { method: 'POST', template: '/api/v1/payment/sandbox/{id}/pay', body: 'none', sample: null },
  { method: 'GET', template: '/api/v1/nothing/here', body: 'none', sample: null },
  { method: 'GET', template: '/v1/files', body: 'none', sample: null },
  { method: 'DELETE', template: '/v1/models/{id}', body: 'none', sample: null },
  { method: 'GET', template: '/v1/chat/completions', body: 'none', sample: null },
];

/** Every route of the document (with request samples), the gateway's under each alias, and the extras. */
export function routesOf(document: OpenApiDocument): Route[] {
  const routes: Route[] = [];
  for (const [template, operations] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
      const content = operation.requestBody?.content ?? {};
      const kind: BodyKind = content['multipart/form-data']
        ? 'multipart'
        : content['application/json']
          ? 'json'
          : OAUTH_FORM_PATHS.includes(template)
            ? 'form'
            : 'none';
      const gatewayTail = template.startsWith('/v1/') ? template.slice(3) : null;
      const schemaSample = sampleOf(
        content['application/json']?.schema ?? content['multipart/form-data']?.schema,
        document,
      );
      const sample =
        (gatewayTail && GATEWAY_SAMPLES[gatewayTail]) ||
        OAUTH_FORM_SAMPLES[template] ||
        (template === '/oauth2/register'
          ? { client_name: 'fuzz', redirect_uris: ['http://127.0.0.1:8765/cb'], token_endpoint_auth_method: 'none' }
          : null) ||
        (kind !== 'none' && schemaSample && typeof schemaSample === 'object'
          ? (schemaSample as Record<string, unknown>)
          : null);
      const route: Route = { method: method.toUpperCase(), template, body: kind, sample };
      routes.push(route);
      if (gatewayTail)
        for (const alias of ['/apikey/v1', '/oauth2/v1']) routes.push({ ...route, template: alias + gatewayTail });
    }
  }
  return [...routes, ...EXTRA_ROUTES];
}

const PARAM_VALUES = [
  '1',
  '0',
  '-1',
  'abc',
  'video_fake1',
  'demo-chat',
  '00000000-0000-0000-0000-000000000000',
  '99999999999999999999999999',
  '1e309',
  '%00',
  'a%00b',
  '%ff',
  '%ed%a0%80',
  '%c0%af',
  '%e2%82',
  '..',
  '.',
  '%2e%2e',
  '%2f',
  '..%2f..%2fetc%2fpasswd',
  '%252e%252e',
  '%5c',
  'a'.repeat(3000),
  '%',
  '%zz',
  '%%',
  ';x=1',
  '%20',
  '~',
  'null',
  'undefined',
  '__proto__',
  'constructor',
  'caf\u00e9',
  '%E2%9C%93',
  "'",
  '%27%20OR%201=1--',
  '%3Cscript%3E',
  '%F0%9F%8E%89',
  '\u00ff\u00fe',
];

const QUERY_NAMES = [
  'limit',
  'cursor',
  'from',
  'to',
  'model',
  'groupBy',
  'type',
  'method',
  'detailed',
  'capability',
  'handle',
  'session_id',
  'page',
  'state',
  'client_id',
  'redirect_uri',
  'response_type',
  'scope',
  'code_challenge',
  'code_challenge_method',
  '__proto__',
  'a[b]',
  'x',
];
const QUERY_VALUES = [
  '',
  '1',
  '-1',
  '0',
  '1e309',
  '99999999999999999999',
  'NaN',
  'true',
  'abc',
  '%00',
  '%ff',
  '%ed%a0%80',
  '2026-13-45',
  '2026-01-01T00:00:00Z',
  'a'.repeat(2000),
  '%',
  '..%2f',
  'code',
  'S256',
  'plain',
  'http://evil.example',
  'javascript:alert(1)',
  '%5B%5D',
  'day',
  'model',
  'text',
  'embeddings',
];

const CONTENT_TYPES = [
  'application/json',
  'application/json; charset=utf-8',
  'application/json; charset=utf-16',
  'application/json; charset=latin1',
  'application/json;;;',
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data',
  'multipart/form-data; boundary=',
  'multipart/form-data; boundary=zzz',
  'application/octet-stream',
  '*/*',
  'garbage',
  'application/vnd.api+json',
  'application/xml',
  'text/html; charset=utf-8',
];

const GARBAGE_AUTH = [
  'Bearer x',
  `Bearer ${'a'.repeat(5000)}`,
  'Basic %%%',
  'Basic Og==',
  `Bearer sy-${'A'.repeat(48)}`,
  'Bearer syi_abc',
  'Bearer \u00ff\u00fe',
  'Digest foo',
  'Bearer',
  'bearer  ',
];

const EXTRA_HEADERS: Array<[string, string[]]> = [
  ['accept', ['*/*', 'text/html', 'application/json', 'text/event-stream', 'image/*;q=0', '\u00ff']],
  ['content-encoding', ['gzip', 'deflate', 'br', 'identity', 'x-zip', 'gzip, gzip']],
  ['x-request-id', ['../../etc', 'a'.repeat(100), 'req_ok', '\u00e9']],
  ['x-forwarded-for', ['garbage', '::1', '127.0.0.1, 10.0.0.1']],
  ['origin', ['null', 'https://evil.example', 'http://127.0.0.1']],
  ['range', ['bytes=abc', 'bytes=0-1', 'bytes=-1,0-']],
  ['if-none-match', ['*', '"x"']],
  ['expect', ['100-continue', 'teapot']],
  ['x-service-oauth-client-id', ['x', '%00', 'a'.repeat(500)]],
  ['cookie', ['sy_session=garbage', 'sy_session=; sy_csrf=', '%00=%00', 'a'.repeat(3000)]],
  ['x-csrf-token', ['x', '']],
  ['access-control-request-method', ['POST', 'DELETE']],
];

/** JSON leaves put in place of a sample's values; `RAW:` ones are written into the text as they are. */
const BAD_VALUES: unknown[] = [
  null,
  true,
  false,
  0,
  -1,
  1.5,
  1e308,
  -1e308,
  'RAW:1e999',
  'RAW:-1e999',
  'RAW:123456789012345678901234567890',
  'RAW:1e-400',
  'RAW:-0',
  'RAW:0.0000000000000000000000000001',
  '',
  ' ',
  'x'.repeat(50_000),
  [],
  {},
  [[[[]]]],
  { $gt: '' },
  '\u0000',
  'a\u0000b',
  'RAW:"\\ud800"',
  'RAW:"\\udfff"',
  'RAW:"\\ud800\\u0041"',
  'RAW:"\\uDBFF\\uDFFF"',
  '../../etc/passwd',
  '<script>alert(1)</script>',
  "'; DROP TABLE users; --",
  9007199254740992,
  '2026-13-45',
  'not-an-email',
  '🎉',
  'RAW:"\\u0000"',
  ['a', 1, null],
  'RAW:NaN',
  'RAW:undefined',
];

const MARK = '__FUZZ_RAW_';

function serialize(value: unknown): string {
  const raws: string[] = [];
  const text = JSON.stringify(value, (_key, leaf) => {
    if (typeof leaf === 'string' && leaf.startsWith('RAW:')) {
      raws.push(leaf.slice(4));
      return `${MARK}${raws.length - 1}`;
    }
    return leaf;
  });
  return (text ?? 'null').replace(new RegExp(`"${MARK}(\\d+)"`, 'g'), (_match, index: string) => raws[Number(index)]);
}

/** A copy of `value` with one leaf (or key) replaced by `replacement`. */
function replaceLeaf(value: unknown, dice: Dice, replacement: unknown): unknown {
  if (Array.isArray(value)) {
    if (!value.length || dice.chance(0.3)) return replacement;
    const copy = [...value];
    const index = dice.int(copy.length);
    copy[index] = replaceLeaf(copy[index], dice, replacement);
    return copy;
  }
  if (value && typeof value === 'object') {
    const entries = Object.entries(value);
    if (!entries.length || dice.chance(0.15)) return replacement;
    const copy: Record<string, unknown> = { ...value };
    const [name, inner] = dice.pick(entries);
    if (dice.chance(0.1)) {
      delete copy[name];
      return copy;
    }
    copy[name] = replaceLeaf(inner, dice, replacement);
    return copy;
  }
  return replacement;
}

const nested = (levels: number, core = '1') =>
  levels % 2 ? '['.repeat(levels) + core + ']'.repeat(levels) : '{"a":'.repeat(levels) + core + '}'.repeat(levels);

function jsonBody(sample: Record<string, unknown> | null, dice: Dice): { body: Buffer; label: string } {
  const base = sample ?? { x: 1 };
  const roll = dice.int(100);
  if (roll < 10) return { body: Buffer.from(serialize(base)), label: 'json: sample' };
  if (roll < 45) {
    const bad = dice.pick(BAD_VALUES);
    return {
      body: Buffer.from(serialize(replaceLeaf(base, dice, bad))),
      label: `json: leaf -> ${String(JSON.stringify(bad)).slice(0, 30)}`,
    };
  }
  if (roll < 53) {
    const text = serialize(base);
    return { body: Buffer.from(text.slice(0, dice.int(text.length))), label: 'json: truncated' };
  }
  if (roll < 63) {
    const levels = dice.pick([63, 64, 65, 200, 5_000, 100_000]);
    const text = serialize(base);
    const wrapped = dice.chance(0.5)
      ? nested(levels, text)
      : `${text.slice(0, -1)}${text.length > 2 ? ',' : ''}"deep":${nested(levels)}}`;
    return { body: Buffer.from(wrapped), label: `json: ${levels} levels` };
  }
  if (roll < 68) {
    const top = dice.pick(['[]', '"string"', '1e999', 'null', 'true', '0', '-1', '[{}]', '{}', '""']);
    return { body: Buffer.from(top), label: `json: top-level ${top}` };
  }
  if (roll < 78) {
    const poison = dice.pick(['\\u0000', '\\ud800', '\\udc00', '\\ud800\\u0041', 'a\\u0000', '\\uD83D']);
    const text = serialize(base);
    const quote = text.indexOf('"', dice.int(text.length));
    const body = quote < 0 ? `{"x":"${poison}"}` : `${text.slice(0, quote + 1)}${poison}${text.slice(quote + 1)}`;
    return { body: Buffer.from(body), label: `json: ${poison} in a string` };
  }
  if (roll < 83) {
    const text = Buffer.from(serialize(base));
    const at = dice.int(text.length);
    const bytes = dice.pick([[0xff], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xe2, 0x82], [0x80], [0x00]]);
    return {
      body: Buffer.concat([text.subarray(0, at), Buffer.from(bytes), text.subarray(at)]),
      label: `json: bytes ${bytes.join(',')}`,
    };
  }
  if (roll < 85) {
    const size = dice.pick([1_100_000, 1_500_000]);
    return { body: Buffer.from(serialize({ ...base, padding: 'p'.repeat(size) })), label: `json: ${size} bytes` };
  }
  if (roll < 90) {
    const length = dice.int(2000);
    return { body: Buffer.from(Array.from({ length }, () => dice.int(256))), label: 'json: random bytes' };
  }
  if (roll < 95) {
    const text = dice.pick([
      '',
      ' ',
      '\n',
      '\ufeff{}',
      `\ufeff${serialize(base)}`,
      '{,}',
      '{"a":1,}',
      "{'a':1}",
      '{"a":01}',
      '{"a":.5}',
      '{"a":+1}',
      '{"a":0x10}',
    ]);
    return { body: Buffer.from(text), label: `json: odd text ${JSON.stringify(text).slice(0, 20)}` };
  }
  const text = serialize(base);
  const keys = dice.pick([
    '"__proto__":{"admin":true}',
    '"constructor":{"prototype":{"x":1}}',
    '"model":"a","model":"b"',
    `"${'k'.repeat(10_000)}":1`,
  ]);
  return {
    body: Buffer.from(text.length > 2 ? `{${keys},${text.slice(1)}` : `{${keys}}`),
    label: `json: keys ${keys.slice(0, 20)}`,
  };
}

function multipartBody(
  sample: Record<string, unknown> | null,
  dice: Dice,
): { body: Buffer; contentType: string; label: string } {
  const boundary = `fuzz${dice.int(1e9)}`;
  const fields = Object.entries(sample ?? { model: 'demo-transcribe' }).map(([name, value]) => [name, String(value)]);
  const part = (headers: string, content: Buffer | string) =>
    Buffer.concat([Buffer.from(`--${boundary}\r\n${headers}\r\n\r\n`), Buffer.from(content), Buffer.from('\r\n')]);
  const roll = dice.int(10);
  let label = 'multipart: sample';
  if (roll === 1) {
    fields.push([
      dice.pick(['model', 'prompt', 'x\u0000']),
      dice.pick(['\u0000', 'a\u0000b', 'x'.repeat(2_000_000), '\ud800']),
    ]);
    label = 'multipart: bad field';
  }
  const parts = fields.map(([name, value]) => part(`Content-Disposition: form-data; name="${name}"`, value));
  const fileName = roll === 2 ? dice.pick(['a\u0000.wav', '../../etc/passwd', '\u00ff.png', '']) : 'a.wav';
  if (roll !== 3)
    parts.push(
      part(
        `Content-Disposition: form-data; name="${dice.pick(['file', 'image', 'mask', 'input_reference'])}"; filename="${fileName}"\r\nContent-Type: audio/wav`,
        Buffer.from('RIFF....WAVEfmt '),
      ),
    );
  if (roll === 2) label = `multipart: file name ${JSON.stringify(fileName)}`;
  if (roll === 3) label = 'multipart: no file';
  let body = Buffer.concat([...parts, Buffer.from(`--${boundary}--\r\n`)]);
  if (roll === 4) {
    body = body.subarray(0, dice.int(body.length));
    label = 'multipart: truncated';
  }
  if (roll === 5) {
    body = Buffer.from(`--${boundary}\r\nContent-Disposition: garbage\r\n\r\nx\r\n--${boundary}--\r\n`);
    label = 'multipart: bad part headers';
  }
  if (roll === 6) {
    body = Buffer.concat(
      Array.from({ length: 120 }, (_, i) => part(`Content-Disposition: form-data; name="f${i}"`, 'x')),
    );
    label = 'multipart: 120 parts, no end';
  }
  const contentType =
    roll === 7
      ? dice.pick([
          'multipart/form-data',
          'multipart/form-data; boundary=',
          `multipart/form-data; boundary="${boundary}`,
          'multipart/mixed; boundary=x',
        ])
      : `multipart/form-data; boundary=${boundary}`;
  if (roll === 7) label = `multipart: content type ${contentType}`;
  return { body, contentType, label };
}

function formBody(sample: Record<string, unknown> | null, dice: Dice): { body: Buffer; label: string } {
  const params = new URLSearchParams(
    Object.entries(sample ?? { a: 'b' }).map(([name, value]): [string, string] => [name, String(value)]),
  );
  const roll = dice.int(8);
  let text = params.toString();
  let label = 'form: sample';
  if (roll === 1) {
    text += `&${dice.pick(['code', 'grant_type', 'token', 'client_id'])}=${dice.pick(['%00', '%ff', '%ed%a0%80', '%', '%zz', 'a'.repeat(120_000)])}`;
    label = 'form: bad value';
  } else if (roll === 2) {
    text = Array.from({ length: 150 }, (_, i) => `p${i}=${i}`).join('&');
    label = 'form: 150 parameters';
  } else if (roll === 3) {
    text = dice.pick([
      '&&&=',
      '=',
      '%',
      'a=%ZZ&b=%',
      'grant_type=refresh_token&refresh_token=',
      'grant_type[]=x&grant_type=y',
      '\u00ff\u00fe',
    ]);
    label = `form: odd ${text.slice(0, 10)}`;
  } else if (roll === 4) {
    text = params.toString().slice(0, dice.int(params.toString().length));
    label = 'form: truncated';
  }
  return { body: Buffer.from(text, 'latin1'), label };
}

function fillPath(template: string, dice: Dice, fuzz: boolean): string {
  return template.replace(/\{[^}]+\}/g, () =>
    fuzz || dice.chance(0.5) ? dice.pick(PARAM_VALUES) : dice.pick(['abc', 'video_fake1', 'demo-chat', '1', 'ann']),
  );
}

function mutatePath(path: string, dice: Dice): { path: string; label: string } {
  const choice = dice.int(12);
  switch (choice) {
    case 0:
      return { path: `${path}%00`, label: 'path: %00' };
    case 1:
      return { path: `${path}/..`, label: 'path: /..' };
    case 2:
      return { path: path.replace(/^\//, '//'), label: 'path: //' };
    case 3:
      return { path: path.replace(/[a-z]/g, (c) => c.toUpperCase()), label: 'path: upper case' };
    case 4:
      return { path: `${path}/`, label: 'path: trailing /' };
    case 5:
      return { path: path.replace(/\/([^/]*)$/, '/./$1'), label: 'path: /./' };
    case 6:
      return { path: `${path}/${'s'.repeat(dice.pick([300, 5000]))}`, label: 'path: overlong segment' };
    case 7:
      return { path: path.replace(/\//g, dice.pick(['%2f', '%2F', '\\'])), label: 'path: encoded slashes' };
    case 8:
      return {
        path: `${path}${dice.pick(['%ff', '%ed%a0%80', '%c0%ae%c0%ae', '\u00ff'])}`,
        label: 'path: invalid UTF-8',
      };
    case 9:
      return { path: `${path};jsessionid=x`, label: 'path: ;param' };
    case 10:
      return { path: `/${dice.pick(['..', '%2e%2e', '.%2e'])}${path}`, label: 'path: leading dot segment' };
    default:
      return { path: `${path}%25%30%30`, label: 'path: double-encoded NUL' };
  }
}

function query(dice: Dice): string {
  const count = 1 + dice.int(4);
  return Array.from({ length: count }, () => `${dice.pick(QUERY_NAMES)}=${dice.pick(QUERY_VALUES)}`).join('&');
}

function credentialFor(
  path: string,
  dice: Dice,
  credentials: FuzzCredentials,
): { headers: Record<string, string>; label: string } {
  const roll = dice.int(100);
  if (roll < 20) return { headers: {}, label: 'no credential' };
  if (roll < 40) return { headers: { authorization: dice.pick(GARBAGE_AUTH) }, label: 'garbage credential' };
  const lower = path.toLowerCase();
  if (lower.startsWith('/oauth2/v1') || lower.startsWith('/oauth2/userinfo'))
    return {
      headers: {
        authorization: `Bearer ${credentials.oauthToken}`,
        'x-service-oauth-client-id': credentials.oauthClientId,
      },
      label: 'oauth token',
    };
  if (lower.startsWith('/v1') || lower.startsWith('/apikey/v1'))
    return { headers: { authorization: `Bearer ${credentials.apiKey}` }, label: 'api key' };
  if (roll < 50) return { headers: { cookie: credentials.sessionCookie }, label: 'session cookie' };
  return { headers: { authorization: `Bearer ${credentials.session}` }, label: 'session' };
}

/** Request number `index` of the run with this seed. */
export function fuzzRequest(index: number, seed: number, routes: Route[], credentials: FuzzCredentials): FuzzRequest {
  const dice = new Dice(seededRandom(seed ^ Math.imul(index + 1, 0x9e3779b1)));
  const route = routes[index % routes.length];
  const labels: string[] = [];
  let method = route.method;
  if (dice.chance(0.12)) {
    method = dice.pick(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD', 'TRACE', 'PROPFIND', 'FOO']);
    labels.push(`method ${method}`);
  }
  let path = fillPath(route.template, dice, dice.chance(0.3));
  if (dice.chance(0.3)) {
    const mutated = mutatePath(path, dice);
    path = mutated.path;
    labels.push(mutated.label);
  }
  if (dice.chance(0.35)) path += `?${query(dice)}`;
  const credential = credentialFor(path, dice, credentials);
  // Signing out would end the session the rest of the run uses.
  if (route.template === '/api/v1/auth/logout' && credential.label.startsWith('session')) credential.headers = {};
  labels.push(credential.label);
  const headers: Record<string, string> = { ...credential.headers };
  let body: Buffer | undefined;
  const kind: BodyKind = route.body === 'none' && dice.chance(0.1) ? dice.pick(['json', 'form'] as const) : route.body;
  if (kind === 'json' || (kind === 'form' && dice.chance(0.3))) {
    const made = jsonBody(route.sample, dice);
    body = made.body;
    headers['content-type'] = 'application/json';
    labels.push(made.label);
  } else if (kind === 'form') {
    const made = formBody(route.sample, dice);
    body = made.body;
    headers['content-type'] = 'application/x-www-form-urlencoded';
    labels.push(made.label);
  } else if (kind === 'multipart') {
    const made = multipartBody(route.sample, dice);
    body = made.body;
    headers['content-type'] = made.contentType;
    labels.push(made.label);
  }
  if (dice.chance(0.2)) {
    const type = dice.chance(0.2) ? undefined : dice.pick(CONTENT_TYPES);
    if (type === undefined) delete headers['content-type'];
    else headers['content-type'] = type;
    labels.push(`content-type ${type ?? 'none'}`);
  }
  for (const [name, values] of EXTRA_HEADERS) {
    if (!dice.chance(0.06)) continue;
    headers[name] = dice.pick(values);
    labels.push(`${name}: ${headers[name].slice(0, 20)}`);
  }
  // Framed explicitly: node's client sends a GET's or HEAD's body without any length, which a server can only
  // read as garbage after the request.
  if (body && dice.chance(0.05)) {
    headers['transfer-encoding'] = 'chunked';
    labels.push('chunked');
  } else if (body) headers['content-length'] = String(body.length);
  return { index, route: `${route.method} ${route.template}`, method, path, headers, body, label: labels.join('; ') };
}
