import { createWriteStream, openAsBlob } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import busboy from 'busboy';
import type { IncomingMessage } from 'node:http';
import { INPUT_PROBLEM_MESSAGES, jsonBodyProblem } from '../../../common/http/input-hygiene';
import { GatewayErrorCode, GatewayException } from '../errors/gateway.exception';
import { collect } from '../upstream/each-chunk';

export const JSON_LIMIT_BYTES = 20 * 1024 * 1024;
export const MULTIPART_LIMIT_BYTES = 100 * 1024 * 1024;
export const FILE_LIMIT_BYTES = 50 * 1024 * 1024;

function tooLarge(limit: number): GatewayException {
  return new GatewayException(
    GatewayErrorCode.PAYLOAD_TOO_LARGE,
    `Request body is larger than ${Math.round(limit / 1024 / 1024)} MB`,
  );
}

function declaredTooLarge(req: IncomingMessage, limit: number): boolean {
  const length = Number(req.headers['content-length']);
  return Number.isFinite(length) && length > limit;
}

/** Reads a JSON body once, keeping the raw bytes so an unchanged body can be forwarded without re-serialising. */
export async function readJsonBody(
  req: IncomingMessage,
  limit = JSON_LIMIT_BYTES,
): Promise<{ raw: Buffer; json: Record<string, unknown> }> {
  if (declaredTooLarge(req, limit)) {
    req.resume();
    throw tooLarge(limit);
  }
  const { bytes: raw, over } = await collect(req, limit);
  if (over) {
    // Read on (and dropped), so the answer reaches a client still sending.
    req.resume();
    throw tooLarge(limit);
  }
  // Depth, NUL, lone surrogates and UTF-8, in one scan of the bytes before anything parses or walks them.
  const problem = jsonBodyProblem(raw);
  if (problem)
    throw new GatewayException(
      problem === 'depth' ? GatewayErrorCode.INVALID_JSON : GatewayErrorCode.INVALID_REQUEST,
      INPUT_PROBLEM_MESSAGES[problem],
    );
  let json: unknown;
  try {
    json = JSON.parse(raw.toString('utf8'));
  } catch {
    throw new GatewayException(GatewayErrorCode.INVALID_JSON, 'We could not parse the JSON body of your request');
  }
  if (!json || typeof json !== 'object' || Array.isArray(json))
    throw new GatewayException(GatewayErrorCode.INVALID_REQUEST, 'The request body must be a JSON object');
  return { raw, json: json as Record<string, unknown> };
}

/**
 * Reads and drops the body of a request that takes none (a GET may carry one), so that nothing the caller sent
 * is passed on; more than `limit` bytes is 413.
 */
export async function discardBody(req: IncomingMessage, limit = 64 * 1024): Promise<void> {
  if (declaredTooLarge(req, limit)) {
    req.resume();
    throw tooLarge(limit);
  }
  const { over } = await collect(req, limit);
  if (over) {
    req.resume();
    throw tooLarge(limit);
  }
}

export interface UploadedFile {
  field: string;
  filename: string;
  mimeType: string;
  path: string;
  size: number;
}

export interface ParsedMultipart {
  fields: Map<string, string[]>;
  files: UploadedFile[];
  field(name: string): string | undefined;
  /** A FormData whose files stream from disk, for the upstream request. */
  toFormData(overrides?: Record<string, string>): Promise<FormData>;
  cleanup(): Promise<void>;
}

/**
 * Parses multipart/form-data as it arrives: small fields in memory, files straight to a temporary folder
 * (never whole in memory), with limits per file and in total. The caller must call cleanup().
 */
export async function readMultipart(req: IncomingMessage): Promise<ParsedMultipart> {
  if (!/^multipart\/form-data/i.test(req.headers['content-type'] ?? ''))
    throw new GatewayException(GatewayErrorCode.UNSUPPORTED_MEDIA_TYPE, 'This endpoint takes multipart/form-data');
  if (declaredTooLarge(req, MULTIPART_LIMIT_BYTES)) {
    req.resume();
    throw tooLarge(MULTIPART_LIMIT_BYTES);
  }
  const dir = await mkdtemp(join(tmpdir(), 'switchyard-upload-'));
  const fields = new Map<string, string[]>();
  const files: UploadedFile[] = [];
  const cleanup = () => rm(dir, { recursive: true, force: true });
  try {
    await new Promise<void>((resolve, reject) => {
      let parser: busboy.Busboy;
      try {
        parser = busboy({
          headers: req.headers,
          limits: { fileSize: FILE_LIMIT_BYTES, files: 16, fields: 64, fieldSize: 1024 * 1024, parts: 80 },
        });
      } catch {
        reject(new GatewayException(GatewayErrorCode.INVALID_REQUEST, 'Malformed multipart body'));
        return;
      }
      const writes: Promise<void>[] = [];
      let total = 0;
      let failed: Error | null = null;
      const fail = (error: Error) => {
        if (failed) return;
        failed = error;
        req.unpipe(parser);
        req.resume();
        reject(error);
      };
      const nul = () => new GatewayException(GatewayErrorCode.INVALID_REQUEST, INPUT_PROBLEM_MESSAGES.nul);
      parser.on('field', (name, value, info) => {
        if (name.includes('\0') || value.includes('\0')) return fail(nul());
        if (info.valueTruncated)
          return fail(
            new GatewayException(GatewayErrorCode.PAYLOAD_TOO_LARGE, `Field ${name.slice(0, 100)} is too large`),
          );
        fields.set(name, [...(fields.get(name) ?? []), value]);
      });
      parser.on('file', (name, stream, info) => {
        if (name.includes('\0') || info.filename?.includes('\0') || info.mimeType?.includes('\0')) {
          stream.resume();
          return fail(nul());
        }
        const path = join(dir, `${files.length}`);
        const file: UploadedFile = {
          field: name,
          filename: info.filename || 'upload',
          mimeType: info.mimeType,
          path,
          size: 0,
        };
        files.push(file);
        stream.on('data', (chunk: Buffer) => {
          file.size += chunk.length;
          total += chunk.length;
          if (total > MULTIPART_LIMIT_BYTES) fail(tooLarge(MULTIPART_LIMIT_BYTES));
        });
        stream.on('limit', () =>
          fail(
            new GatewayException(
              GatewayErrorCode.PAYLOAD_TOO_LARGE,
              `File ${file.filename} is larger than ${FILE_LIMIT_BYTES / 1024 / 1024} MB`,
            ),
          ),
        );
        writes.push(pipeline(stream, createWriteStream(path)).catch((error: Error) => fail(error)));
      });
      parser.on('partsLimit', () => fail(new GatewayException(GatewayErrorCode.INVALID_REQUEST, 'Too many parts')));
      parser.on('filesLimit', () => fail(new GatewayException(GatewayErrorCode.INVALID_REQUEST, 'Too many files')));
      parser.on('fieldsLimit', () => fail(new GatewayException(GatewayErrorCode.INVALID_REQUEST, 'Too many fields')));
      parser.on('error', () =>
        fail(new GatewayException(GatewayErrorCode.INVALID_REQUEST, 'Malformed multipart body')),
      );
      parser.on('close', () => {
        Promise.all(writes).then(() => (failed ? undefined : resolve()), reject);
      });
      req.on('aborted', () => fail(new Error('client aborted the upload')));
      req.pipe(parser);
    });
  } catch (error) {
    await cleanup();
    throw error;
  }
  return {
    fields,
    files,
    field: (name) => fields.get(name)?.[0],
    toFormData: async (overrides = {}) => {
      const form = new FormData();
      for (const [name, values] of fields) {
        if (name in overrides) continue;
        for (const value of values) form.append(name, value);
      }
      for (const [name, value] of Object.entries(overrides)) form.append(name, value);
      for (const file of files)
        form.append(file.field, await openAsBlob(file.path, { type: file.mimeType }), file.filename);
      return form;
    },
    cleanup,
  };
}
