import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import type { AnswerSink } from '../call/answer-sink';
import type { Call } from '../call/call';
import type { CatalogModel, ProviderType } from '../catalog/catalog.types';
import type { Cancel } from '../upstream/cancel';
import type { Json } from '../wire/frame';

/**
 * One kind of provider (the catalog's provider `type`): it sends a call to the model's provider and hands the answer
 * to the relay (relay/relay.ts), metered: in OpenAI's format (natively, or translated from its own), or, for a call
 * whose request is in a format it takes natively (`formats`: Anthropic's Messages for Anthropic), in that format.
 * A new kind of provider is one folder (providers/<kind>/) whose adapter registers itself in ProviderAdapters, and
 * the kind's line in the catalog (catalog/provider-kinds.ts: what a models file may say of it).
 */
export interface ProviderAdapter {
  readonly kind: ProviderType;
  /** The wire formats it takes as they come, besides OpenAI's (wire/formats.ts). */
  readonly formats?: readonly string[];
  /**
   * `req`: the caller's own HTTP request, for the few routes that pipe it on (binary downloads); null for a call
   * made in-process.
   */
  dispatch(call: Call, sink: AnswerSink, req: IncomingMessage | null): Promise<void>;
  /** The provider's own count of a request's input tokens, in one of `formats`. */
  countTokens?(
    model: CatalogModel,
    format: string,
    json: Json,
    headers: IncomingHttpHeaders,
    signal: Cancel,
  ): Promise<number>;
}
