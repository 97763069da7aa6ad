import type { IncomingMessage, ServerResponse } from 'node:http';
import { Injectable, Logger } from '@nestjs/common';
import { writeJson } from '../../../../common/errors/error-render';
import { measurePrompt, TOOLS_OVERHEAD_TOKENS } from '../../billing/prompt-size';
import { TokenCounter } from '../../billing/token-counter';
import { type Call, type CallRequest, OPENAI_FORMAT } from '../../call/call';
import type { OutputField } from '../../call/estimate';
import type { CatalogModel } from '../../catalog/catalog.types';
import { GatewayErrorCode, GatewayException } from '../../errors/gateway.exception';
import { requestPolicy } from '../../policy/request-policy';
import type { PolicyVerdict } from '../../policy/verdict';
import { ANTHROPIC_MESSAGES } from '../../wire/formats';
import type { Json } from '../../wire/frame';
import { bodyModelId, type Face, type FaceContext, type FaceInput, streamFlag } from '../face';
import { ANTHROPIC_FACE } from './anthropic.definition';
import { checkMessagesRequest, fitThinking, toChatRequest } from './messages-request';
import { messagesPolicy } from './messages-policy';
import { nativeMessagesWriter, TranslatedMessagesWriter } from './messages-writer';

/** A Messages request's output bound: max_tokens, required (it bounds thinking too). */
const MAX_TOKENS: OutputField[] = ['max_tokens'];

/** A native Messages call's fallback is another model whose provider takes Messages: the same checks for it. */
const nativePolicyFor = (model: CatalogModel, call: Call): PolicyVerdict => messagesPolicy(model, call.json!, true);
/** A translated one's fallback takes its Chat Completions request: the gateway's own policy. */
const chatPolicyFor = (model: CatalogModel, call: Call): PolicyVerdict =>
  requestPolicy('chat_completions', model, call.json, null);

const MISSING = 'Missing credentials: send "x-api-key: <API key>" or "Authorization: Bearer <API key or access token>"';

/**
 * Anthropic's Messages API (docs/anthropic.md), in front of any chat model: a model whose provider takes Messages
 * gets the request as it came (but for the model's name and the output bound), any other the request translated
 * into a chat completion (messages-request.ts), its answer translated back (messages-answer.ts). Errors in
 * Anthropic's shape (anthropic-errors.ts); the credential also in `x-api-key`; count_tokens answered here.
 */
@Injectable()
export class AnthropicFace implements Face {
  readonly definition = ANTHROPIC_FACE;
  private readonly logger = new Logger('Gateway');

  constructor(private readonly counter: TokenCounter) {}

  /** What Anthropic's SDKs send: `x-api-key` (read when no Authorization header is given). */
  credential(req: IncomingMessage): { token: string | undefined; hint: string } {
    const key = req.headers['x-api-key'];
    return { token: typeof key === 'string' ? /^\s*(\S+)\s*$/.exec(key)?.[1] : undefined, hint: MISSING };
  }

  modelId(input: FaceInput): string {
    return bodyModelId(input);
  }

  prepare(input: FaceInput, model: CatalogModel, context: FaceContext): CallRequest {
    const json = input.json ?? {};
    const stream = streamFlag(input.json);
    const native = context.takes(model, ANTHROPIC_MESSAGES);
    // Nothing is reserved or forwarded that the request policy refuses, whatever serves the request.
    const policy = messagesPolicy(model, json, native);
    checkMessagesRequest(json);
    if (native)
      return {
        format: ANTHROPIC_MESSAGES,
        json,
        raw: input.raw,
        form: null,
        stream,
        writer: nativeMessagesWriter,
        policy,
        policyFor: nativePolicyFor,
        outputFields: MAX_TOKENS,
        // A thinking budget stays below a max_tokens the budget lowered, or the call is refused.
        fitOutput: fitThinking,
      };
    const chat = toChatRequest(json, model, (fields) =>
      this.logger.debug({ msg: `not translated for ${model.id}: ${fields.join(', ')}`, requestId: input.requestId }),
    );
    return {
      format: OPENAI_FORMAT,
      json: chat,
      raw: Buffer.from(JSON.stringify(chat)),
      form: null,
      stream,
      writer: new TranslatedMessagesWriter(model.id),
      policy,
      policyFor: chatPolicyFor,
    };
  }

  /** POST /v1/messages/count_tokens: `{"input_tokens": N}`, free (billing/token-counter.ts). */
  async serve(input: FaceInput, res: ServerResponse, context: FaceContext): Promise<void> {
    const json = input.json ?? {};
    const counted = await this.counter.count(input.caller, json.model, input.requestId, (model) => {
      if (!Array.isArray(json.messages) || !json.messages.length)
        throw new GatewayException(GatewayErrorCode.INVALID_REQUEST, 'messages must be a non-empty list', {
          param: 'messages',
        });
      // What a call may not ask the provider for, a count may not either (a URL it would fetch, a server tool).
      const native = context.takes(model, ANTHROPIC_MESSAGES);
      messagesPolicy(model, json, native);
      if (native) return () => context.countTokens(model, ANTHROPIC_MESSAGES, json, input.requestHeaders, input.signal);
      return () => estimateInput(json);
    });
    writeJson(res, 200, { input_tokens: counted });
  }
}

/** The gateway's estimate of a Messages request's input: the one a call's bill starts from (billing/prompt-size.ts). */
function estimateInput(json: Json): number {
  const tools = Array.isArray(json.tools) && json.tools.length > 0;
  const size = measurePrompt([json.system, json.messages, tools ? json.tools : undefined]);
  return size.estimate + (tools ? TOOLS_OVERHEAD_TOKENS : 0);
}
