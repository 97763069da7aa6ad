import type { IncomingHttpHeaders } from 'node:http';
import { Injectable } from '@nestjs/common';
import { measurePrompt, TOOLS_OVERHEAD_TOKENS } from '../billing/prompt-size';
import { CatalogService } from '../catalog/catalog.service';
import { GatewayErrorCode, GatewayException } from '../gateway.exception';
import { AnthropicAdapter } from '../providers/translated.adapter';
import type { Cancel } from '../upstream/cancel';

/**
 * POST /v1/messages/count_tokens (docs/anthropic.md): a Messages request's input tokens, free of charge (the route
 * is rate limited like every call). A model on an Anthropic provider: the provider's own count; any other: the
 * gateway's estimate of the request's input, the one a call's bill starts from (billing/prompt-size.ts).
 */
@Injectable()
export class TokenCounter {
  constructor(
    private readonly catalog: CatalogService,
    private readonly anthropic: AnthropicAdapter,
  ) {}

  async count(json: Record<string, unknown>, requestHeaders: IncomingHttpHeaders, signal: Cancel): Promise<number> {
    const id = json.model;
    if (typeof id !== 'string' || !id)
      throw new GatewayException(GatewayErrorCode.INVALID_REQUEST, 'model is required: list them with GET /v1/models', {
        param: 'model',
      });
    const model = this.catalog.find(id);
    if (!model)
      throw new GatewayException(GatewayErrorCode.MODEL_NOT_FOUND, `The model ${id.slice(0, 200)} does not exist`, {
        param: 'model',
      });
    if (!model.methods.includes('chat_completions'))
      throw new GatewayException(GatewayErrorCode.UNSUPPORTED_METHOD, `The model ${model.id} is no chat model`, {
        param: 'model',
      });
    if (!Array.isArray(json.messages) || !json.messages.length)
      throw new GatewayException(GatewayErrorCode.INVALID_REQUEST, 'messages must be a non-empty list', {
        param: 'messages',
      });
    if (model.provider.type === 'anthropic') return this.anthropic.countTokens(model, json, requestHeaders, signal);
    const tools = Array.isArray(json.tools) && json.tools.length > 0;
    const size = measurePrompt([json.system, json.messages, tools ? json.tools : undefined]);
    return size.estimate + (tools ? TOOLS_OVERHEAD_TOKENS : 0);
  }
}
