import { Injectable } from '@nestjs/common';
import type { ProviderType } from '../catalog/catalog.types';
import { DemoAdapter } from './demo.adapter';
import { OpenAiAdapter } from './openai/openai.adapter';
import type { ProviderAdapter } from './provider-adapter';
import { AnthropicAdapter, GeminiAdapter } from './translated.adapter';

/** The adapter of each provider kind of the catalog (catalog.types.ts PROVIDER_TYPES). */
@Injectable()
export class ProviderAdapters {
  private readonly byType: Record<ProviderType, ProviderAdapter>;

  constructor(openai: OpenAiAdapter, anthropic: AnthropicAdapter, gemini: GeminiAdapter, demo: DemoAdapter) {
    this.byType = { openai, anthropic, gemini, demo };
  }

  of(type: ProviderType): ProviderAdapter {
    return this.byType[type];
  }
}
