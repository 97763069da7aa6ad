import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG } from '../../../../config/config.module';
import type { AppConfig } from '../../../../config/config.schema';
import { AnswerRelay } from '../../relay/relay';
import { UpstreamClient } from '../../upstream/upstream-client';
import { ProviderAdapters } from '../provider-adapters';
import { TranslatedAdapter } from '../translated.adapter';
import { geminiTranslator } from './gemini.translator';

/** Gemini's generateContent API: chat completions translated (gemini.translator.ts). */
@Injectable()
export class GeminiAdapter extends TranslatedAdapter {
  readonly kind = 'gemini' as const;

  constructor(
    upstream: UpstreamClient,
    relay: AnswerRelay,
    @Inject(APP_CONFIG) config: AppConfig,
    adapters: ProviderAdapters,
  ) {
    super(geminiTranslator, upstream, relay, config, adapters);
  }
}
