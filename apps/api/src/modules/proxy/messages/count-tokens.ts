import { randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { Inject, Injectable } from '@nestjs/common';
import { RateLimiterService } from '../../../common/rate-limit/rate-limiter.service';
import { APP_CONFIG } from '../../../config/config.module';
import type { AppConfig } from '../../../config/config.schema';
import { ReservationService } from '../../usage';
import { measurePrompt, TOOLS_OVERHEAD_TOKENS } from '../billing/prompt-size';
import { CatalogService } from '../catalog/catalog.service';
import type { Caller } from '../credentials/caller';
import { GatewayErrorCode, GatewayException } from '../gateway.exception';
import { requestPolicy } from '../policy/request-policy';
import { AnthropicAdapter } from '../providers/translated.adapter';
import type { Cancel } from '../upstream/cancel';

/**
 * POST /v1/messages/count_tokens (docs/anthropic.md): a Messages request's input tokens, free of charge. A model on
 * an Anthropic provider: the provider's own count (its anthropic-beta values filtered like a call's); any other:
 * the gateway's estimate of the request's input, the one a call's bill starts from (billing/prompt-size.ts).
 * Because a count spends the operator's provider rate limit, each credential has a limit of its own
 * (COUNT_TOKENS_RPM, on top of GATEWAY_RPM), and a credential that could not make a call (its balance, its key's
 * limit or the app's cap used up) gets no count either.
 */
@Injectable()
export class TokenCounter {
  constructor(
    private readonly catalog: CatalogService,
    private readonly anthropic: AnthropicAdapter,
    private readonly limiter: RateLimiterService,
    private readonly reservations: ReservationService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async count(
    caller: Caller,
    json: Record<string, unknown>,
    requestHeaders: IncomingHttpHeaders,
    signal: Cancel,
    requestId: string,
  ): Promise<number> {
    if (this.config.countTokensRpm > 0)
      await this.limiter.consume({
        bucket: 'count-tokens-rpm',
        subject: caller.rateLimitSubject,
        max: this.config.countTokensRpm,
        windowSeconds: 60,
      });
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
    // What a call may not ask the provider for, a count may not either (a URL it would fetch, a server tool).
    requestPolicy('messages', model, json, null);
    if (!model.free) await this.couldCall(caller, requestId);
    if (model.provider.type === 'anthropic') return this.anthropic.countTokens(model, json, requestHeaders, signal);
    const tools = Array.isArray(json.tools) && json.tools.length > 0;
    const size = measurePrompt([json.system, json.messages, tools ? json.tools : undefined]);
    return size.estimate + (tools ? TOOLS_OVERHEAD_TOKENS : 0);
  }

  /**
   * Whether the credential could make a call at all: the same reservation a call makes, of the smallest amount
   * (one micro-unit), released at once, as a refused call's is (no usage record follows, and reconciliation
   * expects none). Refused (403, as a call would be) when the balance, the key's spend limit or the app's cap has
   * nothing left.
   */
  private async couldCall(caller: Caller, requestId: string): Promise<void> {
    const reservation = await this.reservations.reserve({
      id: randomUUID(),
      requestId,
      userId: caller.userId,
      apiKeyId: caller.apiKeyId,
      oauthClientId: caller.oauthClientId,
      worstMicros: 1,
      minimumMicros: 1,
      inputEstimateMicros: 0,
    });
    void this.reservations.settle(reservation, 0, 'refused').catch(() => undefined);
  }
}
