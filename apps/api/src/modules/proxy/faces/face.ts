import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AppException } from '../../../common/errors/app.exception';
import type { CallRequest } from '../call/call';
import type { ParsedMultipart } from '../call/request-body';
import type { GatewayPrefix, GatewayRoute } from '../call/route';
import type { CatalogModel } from '../catalog/catalog.types';
import type { Caller } from '../credentials/caller';
import { GatewayErrorCode, GatewayException } from '../errors/gateway.exception';
import type { Cancel } from '../upstream/cancel';
import type { Json } from '../wire/frame';

/** A call as a face receives it: matched, authenticated, its body read. */
export interface FaceInput {
  route: GatewayRoute;
  params: Record<string, string>;
  caller: Caller;
  requestId: string;
  requestHeaders: IncomingMessage['headers'];
  json: Json | null;
  raw: Buffer | null;
  form: ParsedMultipart | null;
  signal: Cancel;
  /** The path the call came on ('/v1/…' for calls made in-process), for error lines. */
  path: string;
  /** The query string after `?` ('' without one). */
  query: string;
}

/** What a face may ask of the providers, through the pipeline (a face never imports a provider). */
export interface FaceContext {
  /** Whether the model's provider takes requests in `format` as they come (Anthropic's Messages, by Anthropic). */
  takes(model: CatalogModel, format: string): boolean;
  /** The provider's own count of a request's input tokens in a format it takes. */
  countTokens(
    model: CatalogModel,
    format: string,
    json: Json,
    headers: IncomingMessage['headers'],
    signal: Cancel,
  ): Promise<number>;
}

/** How a face answers errors (registered with common/errors/error-render.ts, which answers every path's errors). */
export interface FaceErrors {
  /** The paths whose errors are this face's, in lower case (before any route matched: a path off the allowlist). */
  owns(lowerPath: string): boolean;
  status(error: AppException): number;
  body(error: AppException, requestId: string | undefined): unknown;
}

/** A face's routes, prefixes, error shape and OpenAPI paths: what is known before the app starts. */
export interface FaceDefinition {
  name: string;
  prefixes: GatewayPrefix[];
  routes: GatewayRoute[];
  /** Null: the gateway's own shape, OpenAI's. */
  errors: FaceErrors | null;
  /** The OpenAPI operation of one of its routes, and the security schemes it names. */
  openApi(route: GatewayRoute): { path: string; method: string; operation: Record<string, unknown> };
  securitySchemes?: Record<string, Record<string, unknown>>;
}

/**
 * An inbound face (docs/architecture.md, "Module faces" of the gateway): one wire format callers speak, in one
 * folder (faces/<name>/). It reads the caller's request into the call (the model it names, the request as the
 * provider gets it: its own format when the model's provider takes it natively, else OpenAI's, the gateway's own),
 * writes the answer's frames in its format (the call's AnswerWriter), and renders its errors. Routes it answers
 * itself, outside the pipeline (a models list, a token count), go through `serve`.
 */
export interface Face {
  readonly definition: FaceDefinition;
  /** Besides `Authorization: Bearer`, the credential its clients send (x-api-key, x-goog-api-key), and how to ask. */
  credential?(req: IncomingMessage, query: string): { token: string | undefined; hint: string };
  /** The model the call names (its body's `model`, a path parameter, a video's model); throws when it names none. */
  modelId(input: FaceInput): string | Promise<string>;
  /** The call's request, checked by the face (its request policy first), and how its answer is written. */
  prepare(input: FaceInput, model: CatalogModel, context: FaceContext): CallRequest;
  /** A route it answers itself (`list_models`, `get_model`, `count_tokens`). */
  serve?(input: FaceInput, res: ServerResponse, context: FaceContext): Promise<void>;
}

/** The model a JSON body (or a form) names: required, a string. */
export function bodyModelId(input: FaceInput): string {
  const id = input.json ? input.json.model : input.form?.field('model');
  if (typeof id !== 'string' || !id)
    throw new GatewayException(GatewayErrorCode.INVALID_REQUEST, 'model is required: list them with GET /v1/models', {
      param: 'model',
    });
  return id;
}

/** A body's `stream` flag: absent, true or false. */
export function streamFlag(json: Json | null): boolean {
  if (json && 'stream' in json && typeof json.stream !== 'boolean')
    throw new GatewayException(GatewayErrorCode.INVALID_REQUEST, 'stream must be true or false', { param: 'stream' });
  return json?.stream === true;
}
