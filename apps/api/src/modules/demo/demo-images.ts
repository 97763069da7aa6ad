import { unixSeconds, type HandlerContext } from './context';
import { invalid, jsonResponse } from './errors';
import {
  bodyObject,
  checkEnum,
  formFields,
  formInteger,
  missing,
  optionalBoolean,
  optionalEnum,
  optionalInteger,
  requiredString,
  type JsonObject,
} from './fields';
import { seedFromHex, sha256Hex } from './hash';
import { renderPattern } from './pattern';
import { encodePng, sniffImage } from './png';
import { sseEvent, sseResponse } from './streaming';
import { countTokens } from './tokenizer';
import { IMAGE_TOKENS } from './demo-text';

/**
 * POST /v1/images/generations, /edits and /variations. Every image is a real PNG at the requested size,
 * rendered from a seed (prompt, image index and, for edits and variations, the uploaded bytes). Answers are
 * `b64_json` by default; `response_format: 'url'` returns a `data:image/png;base64,...` URL because the demo
 * has no file host. `output_format` jpeg/webp are accepted but the demo always returns PNG (and says
 * `output_format: 'png'`).
 */

export const IMAGE_SIZES = [
  '256x256',
  '512x512',
  '1024x1024',
  '1024x1536',
  '1536x1024',
  '1792x1024',
  '1024x1792',
] as const;
const VARIATION_SIZES = ['256x256', '512x512', '1024x1024'] as const;
const MAX_IMAGES = 4;
const MAX_UPLOAD_BYTES = 50 * 1024 * 1024;
const MAX_EDIT_IMAGES = 16;
const EDIT_FIELDS = [
  'prompt',
  'n',
  'size',
  'response_format',
  'model',
  'quality',
  'output_format',
  'background',
  'stream',
];

interface ImageRequest {
  prompt: string;
  n: number;
  width: number;
  height: number;
  size: string;
  responseFormat: 'b64_json' | 'url';
  quality: string;
  stream: boolean;
  /** Hash of uploaded images (edits, variations), mixed into the seed. */
  inputHash: string;
  inputImages: number;
  /** Text tokens billed for the prompt (0 for variations, which have none). */
  textTokens: number;
}

function parseSize(
  value: string | undefined,
  allowed: readonly string[],
): { width: number; height: number; size: string } {
  const size = value === undefined || value === 'auto' ? '1024x1024' : checkEnum('size', value, [...allowed, 'auto']);
  const [width, height] = size.split('x').map(Number);
  return { width, height, size };
}

function readQuality(value: unknown): string {
  if (value === 'low' || value === 'high') return value;
  return value === 'hd' ? 'high' : 'medium';
}

function readCommon(fields: JsonObject, allowedSizes: readonly string[], multipart: boolean) {
  const n = (multipart ? formInteger(fields, 'n', 1, MAX_IMAGES) : optionalInteger(fields, 'n', 1, MAX_IMAGES)) ?? 1;
  const { width, height, size } = parseSize(optionalEnum(fields, 'size', [...allowedSizes, 'auto']), allowedSizes);
  const responseFormat = optionalEnum(fields, 'response_format', ['b64_json', 'url'] as const) ?? 'b64_json';
  optionalEnum(fields, 'output_format', ['png', 'jpeg', 'webp'] as const);
  const stream = multipart ? fields.stream === 'true' : (optionalBoolean(fields, 'stream') ?? false);
  return { n, width, height, size, responseFormat, quality: readQuality(fields.quality), stream };
}

function render(request: ImageRequest, ctx: HandlerContext): Response {
  const created = unixSeconds(ctx);
  const images = Array.from({ length: request.n }, (_, index) => {
    const seed = seedFromHex(sha256Hex('image', request.prompt, request.inputHash, String(index)));
    return encodePng(request.width, request.height, renderPattern(seed, request.width, request.height)).toString(
      'base64',
    );
  });
  const textTokens = request.textTokens;
  const imageTokens = request.inputImages * IMAGE_TOKENS;
  // Output tokens: one per 64×64 tile, so a 1024×1024 image is 256 tokens.
  const outputTokens = request.n * Math.ceil((request.width * request.height) / 4096);
  const usage = {
    total_tokens: textTokens + imageTokens + outputTokens,
    input_tokens: textTokens + imageTokens,
    output_tokens: outputTokens,
    input_tokens_details: { text_tokens: textTokens, image_tokens: imageTokens },
  };
  if (request.stream) {
    // gpt-image streaming: no partial images from the demo, one `*.completed` event per image.
    const type = request.inputImages > 0 ? 'image_edit.completed' : 'image_generation.completed';
    const events = images.map((b64) =>
      sseEvent(
        {
          type,
          b64_json: b64,
          created_at: created,
          size: request.size,
          quality: request.quality,
          background: 'opaque',
          output_format: 'png',
          usage,
        },
        type,
      ),
    );
    return sseResponse(events, ctx.pacing);
  }
  return jsonResponse({
    created,
    data: images.map((b64) =>
      request.responseFormat === 'url'
        ? { url: `data:image/png;base64,${b64}`, revised_prompt: request.prompt }
        : { b64_json: b64, revised_prompt: request.prompt },
    ),
    background: 'opaque',
    output_format: 'png',
    size: request.size,
    quality: request.quality,
    usage,
  });
}

export function imageGeneration(json: unknown, ctx: HandlerContext): Response {
  const body = bodyObject(json);
  const prompt = requiredString(body, 'prompt', { maxLength: 32000 });
  const common = readCommon(body, IMAGE_SIZES, false);
  return render({ prompt, ...common, inputHash: '', inputImages: 0, textTokens: countTokens(prompt) }, ctx);
}

/** Reads and validates an uploaded image: a non-empty PNG, JPEG or WebP file under the size limit. */
type FormValue = NonNullable<ReturnType<FormData['get']>>;

async function readImageFile(value: FormValue, param: string, only?: 'png'): Promise<Uint8Array> {
  if (typeof value === 'string') {
    throw invalid(`Invalid type for '${param}': expected a file, but got a string instead.`, param, 'invalid_type');
  }
  if (value.size === 0) throw invalid(`Invalid file '${param}': the file is empty.`, param, 'empty_file');
  if (value.size > MAX_UPLOAD_BYTES) {
    throw invalid(`Invalid file '${param}': the file is larger than 50 MB.`, param, 'file_too_large');
  }
  const bytes = new Uint8Array(await value.arrayBuffer());
  const kind = sniffImage(bytes);
  if (!kind || (only && kind !== only)) {
    throw invalid(
      only
        ? `Invalid file '${param}': the file must be a PNG image.`
        : `Invalid file '${param}': unsupported image format. Supported formats are 'image/png', 'image/jpeg', and 'image/webp'.`,
      param,
      'invalid_image_format',
    );
  }
  return bytes;
}

export async function imageEdit(form: FormData | undefined, ctx: HandlerContext): Promise<Response> {
  if (!form) throw missing('image');
  const fields = formFields(form, EDIT_FIELDS);
  // The SDK sends one image as `image` and several as `image[]`: accept both.
  const uploads = [...form.getAll('image'), ...form.getAll('image[]')];
  if (uploads.length === 0) throw missing('image');
  if (uploads.length > MAX_EDIT_IMAGES) {
    throw invalid(`Invalid 'image': at most ${MAX_EDIT_IMAGES} images are allowed.`, 'image', 'array_above_max_length');
  }
  const prompt = requiredString(fields, 'prompt', { maxLength: 32000 });
  const common = readCommon(fields, IMAGE_SIZES, true);
  const hashes: string[] = [];
  for (const [index, upload] of uploads.entries()) {
    hashes.push(sha256Hex(await readImageFile(upload, uploads.length > 1 ? `image[${index}]` : 'image')));
  }
  const mask = form.get('mask');
  if (mask !== null) hashes.push('mask', sha256Hex(await readImageFile(mask, 'mask', 'png')));
  return render(
    { prompt, ...common, inputHash: hashes.join(','), inputImages: uploads.length, textTokens: countTokens(prompt) },
    ctx,
  );
}

export async function imageVariation(form: FormData | undefined, ctx: HandlerContext): Promise<Response> {
  if (!form) throw missing('image');
  const fields = formFields(form, EDIT_FIELDS);
  const upload = form.get('image');
  if (upload === null) throw missing('image');
  const bytes = await readImageFile(upload, 'image');
  const common = readCommon(fields, VARIATION_SIZES, true);
  // A variation has no prompt; the revised_prompt field says what the demo did.
  return render(
    {
      prompt: 'A variation of the uploaded image.',
      ...common,
      stream: false,
      inputHash: sha256Hex(bytes),
      inputImages: 1,
      textTokens: 0,
    },
    ctx,
  );
}
