import type { ModelEntry } from '@switchyard/shared-dto';

import {
  capabilitiesOf,
  capabilityLabel,
  deploymentLines,
  modelsForTask,
  modelsQuery,
  pricingLines,
  searchModels,
  tasksOf,
  tokensLabel,
} from './catalog';

const chat: ModelEntry = {
  id: 'demo-chat',
  object: 'model',
  owned_by: 'switchyard-demo',
  type: 'text',
  methods: ['chat_completions', 'completions'],
  capabilities: ['streaming', 'vision'],
  context_length: 32768,
  pricing: { inputPerMTok: 0.5, outputPerMTok: 1.5 },
};
const tts: ModelEntry = {
  id: 'demo-tts',
  object: 'model',
  owned_by: 'switchyard-demo',
  type: 'audio',
  methods: ['audio_speech'],
  capabilities: [],
  pricing: { perMChars: 15 },
};
// An id that looks like a chat model but whose entry says it makes images: only the entry counts.
const misleading: ModelEntry = {
  id: 'gpt-chat-tts',
  object: 'model',
  owned_by: 'acme',
  type: 'image',
  methods: ['image_generation'],
  capabilities: ['multi_image_edit'],
};

describe('the model catalog', () => {
  it('asks the gateway with only the filters set', () => {
    expect(modelsQuery({ type: '', method: '', capability: '' })).toBe('');
    expect(modelsQuery({ type: 'audio', method: 'audio_speech', capability: '' })).toBe(
      '?type=audio&method=audio_speech',
    );
    expect(modelsQuery({ type: '', method: '', capability: 'vision' })).toBe('?capability=vision');
  });

  it('offers every listed capability once, sorted', () => {
    expect(capabilitiesOf([chat, tts, misleading])).toEqual(['multi_image_edit', 'streaming', 'vision']);
    expect(capabilityLabel('multi_image_edit')).toBe('Multi image edit');
  });

  it('searches ids and owners', () => {
    expect(searchModels([chat, tts, misleading], 'ACME')).toEqual([misleading]);
    expect(searchModels([chat, tts], ' tts ')).toEqual([tts]);
    expect(searchModels([chat, tts], '')).toEqual([chat, tts]);
  });

  it('states prices and lengths from the entry, and nothing it lacks', () => {
    expect(pricingLines(chat.pricing)).toEqual(['$0.50 per 1M input tokens', '$1.50 per 1M output tokens']);
    expect(pricingLines({ perImage: 0.01, perSecond: 0.1 })).toEqual(['$0.01 per image', '$0.10 per second']);
    expect(pricingLines({ perMChars: 15 })).toEqual(['$15.00 per 1M characters']);
    expect(pricingLines(undefined)).toEqual([]);
    expect(pricingLines({ free: true, source: 'config' })).toEqual(['Free']);
    expect(
      pricingLines({
        inputPerMTok: 3,
        cacheReadPerMTok: 0.3,
        cacheWrite1hPerMTok: 6,
        tierAboveTokens: 200_000,
        inputAbovePerMTok: 6,
        perRequest: 0.001,
        source: 'catalog',
      }),
    ).toEqual([
      '$3.00 per 1M input tokens',
      '$0.30 per 1M cached input tokens',
      '$6.00 per 1M tokens written to the cache (1 hour)',
      '$6.00 per 1M input tokens for prompts above 200,000 tokens',
      '$0.001 per request',
    ]);
    expect(tokensLabel(32768)).toBe('32,768 tokens');
    expect(tokensLabel(undefined)).toBeNull();
  });

  it('picks models for a playground task by type and method, never by id', () => {
    expect(modelsForTask([chat, tts, misleading], 'chat')).toEqual([chat]);
    expect(modelsForTask([chat, tts, misleading], 'speech')).toEqual([tts]);
    expect(modelsForTask([chat, tts, misleading], 'image')).toEqual([misleading]);
    expect(tasksOf(misleading)).toEqual(['image']);
    expect(tasksOf(chat)).toEqual(['chat']);
  });
});

describe('deploymentLines', () => {
  it('lists each provider of a model with several deployments, with its health; none for one deployment', () => {
    expect(
      deploymentLines({
        ...chat,
        deployments: [
          { provider: 'openai-eu', status: 'closed', weight: 3 },
          { provider: 'azure-us', status: 'open', weight: 1 },
          { provider: 'local', status: 'forced_open', weight: 0 },
        ],
      }),
    ).toEqual(['openai-eu: healthy', 'azure-us: cooling down', 'local: switched off (standby)']);
    expect(deploymentLines({ ...chat, deployments: [{ provider: 'demo', status: 'closed', weight: 1 }] })).toEqual([]);
    expect(deploymentLines(chat)).toEqual([]);
  });
});
