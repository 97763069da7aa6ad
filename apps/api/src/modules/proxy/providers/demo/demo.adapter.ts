import { Injectable, OnModuleInit } from '@nestjs/common';
import { DemoProvider, type DemoMethod } from '../../../demo';
import type { AnswerSink } from '../../call/answer-sink';
import type { Call } from '../../call/call';
import { AnswerRelay } from '../../relay/relay';
import { openAiJsonBody } from '../openai-body';
import type { ProviderAdapter } from '../provider-adapter';
import { ProviderAdapters } from '../provider-adapters';

/**
 * The offline `demo` provider (modules/demo): called in-process with the request the gateway would send upstream,
 * its Response relayed like an OpenAI-compatible server's.
 */
@Injectable()
export class DemoAdapter implements ProviderAdapter, OnModuleInit {
  readonly kind = 'demo' as const;

  constructor(
    private readonly demo: DemoProvider,
    private readonly relay: AnswerRelay,
    private readonly adapters: ProviderAdapters,
  ) {}

  onModuleInit(): void {
    this.adapters.register(this);
  }

  async dispatch(call: Call, sink: AnswerSink): Promise<void> {
    const body = openAiJsonBody(call);
    const response = await this.demo.handle(
      {
        method: call.route.action as DemoMethod,
        publicModel: call.model.id,
        json: body === undefined ? formAsJson(call) : body === call.raw ? call.json : JSON.parse(body.toString()),
        form: call.form && call.route.body === 'multipart' ? await call.form.toFormData() : undefined,
        videoId: call.params.id,
        userKey: call.caller.userId,
      },
      call.signal.abortSignal,
    );
    const upstream = {
      status: response.status,
      headers: Object.fromEntries(response.headers),
      body: (response.body ?? (async function* () {})()) as AsyncIterable<Uint8Array>,
    };
    await this.relay.openAiFormat(call, upstream, sink);
  }
}

/** A JSON route that arrived as multipart (POST /videos from the SDK): its plain fields as JSON. */
function formAsJson(call: Call): Record<string, unknown> | undefined {
  if (!call.form || call.route.body !== 'json') return undefined;
  return Object.fromEntries([...call.form.fields].map(([name, values]) => [name, values[0]]));
}
