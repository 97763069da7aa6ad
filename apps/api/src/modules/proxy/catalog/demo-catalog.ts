import type { RawCatalog } from './catalog-loader';

/**
 * The catalog without MODELS_CONFIG (docs/decisions.md#model-catalog): every method served by the offline `demo`
 * provider, priced like small real models so budgets and costs behave as they will in production.
 */
export const DEMO_CATALOG: RawCatalog = {
  providers: [{ id: 'demo', type: 'demo' }],
  models: [
    {
      id: 'demo-chat',
      provider: 'demo',
      type: 'text',
      methods: ['chat_completions', 'completions', 'responses'],
      capabilities: ['streaming', 'tools', 'vision'],
      contextLength: 32768,
      maxOutputTokens: 4096,
      pricing: { inputPerMTok: 0.5, outputPerMTok: 1.5 },
    },
    {
      id: 'demo-embedding',
      provider: 'demo',
      type: 'embedding',
      methods: ['embeddings'],
      contextLength: 8192,
      pricing: { inputPerMTok: 0.02 },
    },
    {
      id: 'demo-image',
      provider: 'demo',
      type: 'image',
      methods: ['image_generation', 'image_edit', 'image_variation'],
      capabilities: ['multi_image_edit'],
      pricing: { perImage: 0.01 },
    },
    {
      id: 'demo-tts',
      provider: 'demo',
      type: 'audio',
      methods: ['audio_speech'],
      pricing: { perMChars: 15 },
    },
    {
      id: 'demo-transcribe',
      provider: 'demo',
      type: 'audio',
      methods: ['audio_transcription'],
      pricing: { inputPerMTok: 2.5, outputPerMTok: 10 },
    },
    {
      id: 'demo-video',
      provider: 'demo',
      type: 'video',
      methods: ['video_generation'],
      pricing: { perSecond: 0.1 },
    },
  ],
};
