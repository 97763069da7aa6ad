import type { IncomingMessage } from 'node:http';
import type { AnswerSink } from '../call/answer-sink';
import type { Call } from '../call/call';

/**
 * One kind of provider (the catalog's provider `type`): it sends a call to the model's provider and writes the
 * answer to the caller, in OpenAI's wire format, through the relay (relay/relay.ts), which meters it. A new kind
 * of provider is one folder with an adapter registered in ProviderAdapters (provider-adapters.ts).
 */
export interface ProviderAdapter {
  /**
   * `req`: the caller's own HTTP request, for the few routes that pipe it on (binary downloads); null for a call
   * made in-process.
   */
  dispatch(call: Call, sink: AnswerSink, req: IncomingMessage | null): Promise<void>;
}
