import { Inject, Injectable } from '@nestjs/common';
import { RateLimiterService } from '../../../common/rate-limit/rate-limiter.service';
import { APP_CONFIG } from '../../../config/config.module';
import type { AppConfig } from '../../../config/config.schema';
import { CatalogService } from '../catalog/catalog.service';
import type { CatalogModel } from '../catalog/catalog.types';
import type { Caller } from '../credentials/caller';
import { GatewayErrorCode, GatewayException } from '../errors/gateway.exception';
import { CallBilling } from './call-billing';

/** The count of a request, once checked for a model: the provider's own, or the gateway's estimate. */
export type Count = () => number | Promise<number>;

/**
 * A request's input tokens, free of charge (Anthropic's `count_tokens`, Gemini's `countTokens`; docs/anthropic.md,
 * docs/gemini.md): the face checks the request and counts it (the provider's own count where the model's provider
 * takes the face's format, else the gateway's estimate of the input, the one a call's bill starts from). Because a
 * count spends the operator's provider rate limit, each credential has a limit of its own (COUNT_TOKENS_RPM, on top
 * of GATEWAY_RPM), and a credential that could not make a call (its balance, its key's limit or the app's cap used
 * up) gets no count either.
 */
@Injectable()
export class TokenCounter {
  constructor(
    private readonly catalog: CatalogService,
    private readonly limiter: RateLimiterService,
    private readonly billing: CallBilling,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** `check`: the face's checks of the request for the model (they throw), and how it is counted. */
  async count(caller: Caller, id: unknown, requestId: string, check: (model: CatalogModel) => Count): Promise<number> {
    if (this.config.countTokensRpm > 0)
      await this.limiter.consume({
        bucket: 'count-tokens-rpm',
        subject: caller.rateLimitSubject,
        max: this.config.countTokensRpm,
        windowSeconds: 60,
      });
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
    const counted = check(model);
    if (!model.free) await this.billing.couldCall(caller, requestId);
    return counted();
  }
}
