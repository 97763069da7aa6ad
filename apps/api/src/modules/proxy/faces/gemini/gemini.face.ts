import type { IncomingMessage, ServerResponse } from 'node:http';
import { Injectable, Logger } from '@nestjs/common';
import { writeJson } from '../../../../common/errors/error-render';
import { measurePrompt, TOOLS_OVERHEAD_TOKENS } from '../../billing/prompt-size';
import { TokenCounter } from '../../billing/token-counter';
import { type Call, type CallRequest, OPENAI_FORMAT } from '../../call/call';
import { CatalogService } from '../../catalog/catalog.service';
import type { CatalogModel } from '../../catalog/catalog.types';
import { GatewayErrorCode, GatewayException } from '../../errors/gateway.exception';
import { requestPolicy } from '../../policy/request-policy';
import type { PolicyVerdict } from '../../policy/verdict';
import type { Json } from '../../wire/frame';
import type { Face, FaceInput } from '../face';
import { GEMINI_FACE } from './gemini.definition';
import { streams } from './gemini.routes';
import { geminiPolicy } from './gemini-policy';
import { field, thoughtsAsked, toChatRequest } from './gemini-request';
import { GeminiWriter } from './gemini-writer';

/** A fallback takes the call's Chat Completions request: the gateway's own policy. */
const chatPolicyFor = (model: CatalogModel, call: Call): PolicyVerdict =>
  requestPolicy('chat_completions', model, call.json, null);

const MISSING =
  'Missing credentials: send "x-goog-api-key: <API key>" (or "Authorization: Bearer <API key or access token>")';

/**
 * Gemini's generateContent API (docs/gemini.md), in front of every chat model: the request translated into a chat
 * completion (gemini-request.ts), the answer translated back (gemini-answer.ts), errors in Google's shape
 * (gemini-errors.ts); the credential in `x-goog-api-key` (or Google's `?key=`); countTokens and a model's
 * description answered here.
 */
@Injectable()
export class GeminiFace implements Face {
  readonly definition = GEMINI_FACE;
  private readonly logger = new Logger('Gateway');

  constructor(
    private readonly counter: TokenCounter,
    private readonly catalog: CatalogService,
  ) {}

  /** What Google's SDKs send (`x-goog-api-key`), or the `key` query parameter Google accepts too (never logged). */
  credential(req: IncomingMessage, query: string): { token: string | undefined; hint: string } {
    const header = req.headers['x-goog-api-key'];
    const key = typeof header === 'string' ? header : new URLSearchParams(query).get('key');
    return { token: typeof key === 'string' ? /^\s*(\S+)\s*$/.exec(key)?.[1] : undefined, hint: MISSING };
  }

  modelId(input: FaceInput): string {
    return input.params.model;
  }

  prepare(input: FaceInput, model: CatalogModel): CallRequest {
    const json = input.json ?? {};
    const stream = streams(input.route);
    if (stream && new URLSearchParams(input.query).get('alt') !== 'sse')
      throw new GatewayException(
        GatewayErrorCode.INVALID_REQUEST,
        'alt: streamGenerateContent is served as server-sent events: add ?alt=sse (as Google’s SDKs do)',
        { param: 'alt' },
      );
    // Nothing is reserved or forwarded that the request policy refuses.
    const policy = geminiPolicy(json);
    const chat = toChatRequest(json, model, stream, (fields) =>
      this.logger.debug({ msg: `not translated for ${model.id}: ${fields.join(', ')}`, requestId: input.requestId }),
    );
    return {
      format: OPENAI_FORMAT,
      json: chat,
      raw: Buffer.from(JSON.stringify(chat)),
      form: null,
      stream,
      writer: new GeminiWriter(model.id, thoughtsAsked(json)),
      policy,
      policyFor: chatPolicyFor,
    };
  }

  /** countTokens (free: billing/token-counter.ts) and a model's description. */
  async serve(input: FaceInput, res: ServerResponse): Promise<void> {
    if (input.route.action === 'get_model') return this.describe(input.params.model, res);
    const body = input.json ?? {};
    // Google takes { contents } or { generateContentRequest: { contents, systemInstruction, tools, … } }.
    const inner = field(body, 'generateContentRequest');
    const request = typeof inner === 'object' && inner !== null && !Array.isArray(inner) ? (inner as Json) : body;
    const total = await this.counter.count(input.caller, input.params.model, input.requestId, (model) => {
      geminiPolicy(request);
      const chat = toChatRequest(request, model, false, () => undefined);
      const tools = Array.isArray(chat.tools) && chat.tools.length > 0;
      const size = measurePrompt([chat.messages, tools ? chat.tools : undefined]);
      return () => size.estimate + (tools ? TOOLS_OVERHEAD_TOKENS : 0);
    });
    writeJson(res, 200, { totalTokens: total });
  }

  /** A chat model as Gemini's API describes one (`models.get`). */
  private describe(id: string, res: ServerResponse): void {
    const model = this.catalog.find(id);
    if (!model || !model.methods.includes('chat_completions'))
      throw new GatewayException(GatewayErrorCode.MODEL_NOT_FOUND, `The model ${id.slice(0, 200)} does not exist`, {
        param: 'model',
      });
    writeJson(res, 200, {
      name: `models/${model.id}`,
      baseModelId: model.id,
      version: '1',
      displayName: model.id,
      description: `${model.id}, served by Switchyard`,
      ...(model.contextLength ? { inputTokenLimit: model.contextLength } : {}),
      ...(model.maxOutputTokens ? { outputTokenLimit: model.maxOutputTokens } : {}),
      supportedGenerationMethods: ['generateContent', 'streamGenerateContent', 'countTokens'],
    });
  }
}
