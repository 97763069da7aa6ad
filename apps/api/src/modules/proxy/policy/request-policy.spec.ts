import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CatalogModel, ModelFeatures } from '../catalog/catalog.types';
import { boundEstimate, pricedModel } from '../billing/bounded-estimate';
import type { Estimate } from '../billing/budget-estimate';
import { featureCostMicros } from '../billing/feature-cost';
import { noFeatureUse } from '../call/feature-use';
import type { RouteMethod } from '../catalog/actions';
import { GatewayException } from '../errors/gateway.exception';
import { messagesPolicy } from '../faces/anthropic/messages-policy';
import { filterBetas } from '../providers/anthropic/anthropic-beta';
import { noteFeatureUse } from '../providers/anthropic/anthropic-features';
import { requestPolicy as openAiFormatPolicy, withWrites } from './request-policy';

/**
 * The policy a request meets on its route: `messages` is the Anthropic face's (faces/anthropic/messages-policy.ts),
 * sent natively to an Anthropic model and translated for the others; the rest OpenAI's format's.
 */
const requestPolicy = (
  action: RouteMethod | 'messages',
  on: CatalogModel,
  json: Record<string, unknown> | null,
  form: { field(name: string): string | undefined } | null,
) =>
  action === 'messages'
    ? messagesPolicy(on, json!, on.provider.type === 'anthropic')
    : openAiFormatPolicy(action, on, json, form);

const features = (extra: Partial<ModelFeatures> = {}): ModelFeatures => ({
  webSearch: null,
  documentUrls: false,
  ...extra,
});
const model = (type: string, extra: Partial<CatalogModel> = {}): CatalogModel =>
  ({
    id: `${type}-model`,
    provider: { type },
    contextLength: 100_000,
    pricing: { inputPerMTok: 1, outputPerMTok: 2 },
    features: features(),
    imagePrices: null,
    capabilities: [],
    ...extra,
  }) as unknown as CatalogModel;
const claude = model('anthropic');
const searching = model('anthropic', { features: features({ webSearch: { perSearch: 0.01, maxUses: 5 } }) });
const gpt = model('openai');
const ask = { model: 'm', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] };

/** The field a refusal names (its `param`), or null when the request passes. */
function refusedParam(run: () => unknown): string | null {
  try {
    run();
    return null;
  } catch (error) {
    expect(error).toBeInstanceOf(GatewayException);
    expect((error as GatewayException).status).toBe(400);
    return (error as GatewayException).options.details![0].field;
  }
}
const messages = (json: Record<string, unknown>, on = claude) =>
  refusedParam(() => requestPolicy('messages', on, { ...ask, ...json }, null));
const userBlock = (block: unknown) => ({ messages: [{ role: 'user', content: [block] }] });

describe('request policy: /v1/messages sent natively', () => {
  it('passes what Claude Code sends: adaptive thinking, context clearing, effort, metadata, custom and client tools', () => {
    const verdict = requestPolicy(
      'messages',
      claude,
      {
        ...ask,
        thinking: { type: 'adaptive' },
        context_management: { edits: [{ type: 'clear_thinking_20251015', keep: 'all' }] },
        output_config: { effort: 'high' },
        metadata: { user_id: 'u' },
        service_tier: 'auto',
        speed: 'standard',
        tools: [
          { name: 'Bash', input_schema: {} },
          { type: 'custom', name: 'c', input_schema: {} },
          { type: 'bash_20250124', name: 'bash' },
          { type: 'text_editor_20250728', name: 'str_replace_based_edit_tool' },
        ],
        messages: [
          { role: 'user', content: 'hi' },
          { role: 'system', content: 'be brief' },
        ],
      },
      null,
    );
    expect(verdict).toMatchObject({ inputAtContextLength: null, webSearch: null, extraInputTokens: 2400 });
  });

  it.each([
    ['mcp_servers', { mcp_servers: [{ type: 'url', url: 'https://mcp.example', name: 'x' }] }],
    ['container', { container: 'cntr_1' }],
    ['compaction', { compaction: { enabled: true } }],
    ['fallbacks', { fallbacks: [{ model: 'claude-opus' }] }],
    ['service_tier', { service_tier: 'priority' }],
    ['speed', { speed: 'fast' }],
    ['inference_geo', { inference_geo: 'us' }],
    [
      'context_management.edits[1]',
      { context_management: { edits: [{ type: 'clear_tool_uses_20250919' }, { type: 'compact_20260112' }] } },
    ],
    [
      'tools[1]',
      {
        tools: [
          { name: 'a', input_schema: {} },
          { type: 'web_fetch_20250910', name: 'web_fetch' },
        ],
      },
    ],
    ['tools[0]', { tools: [{ type: 'code_execution_20250825', name: 'code_execution' }] }],
    ['tools[0]', { tools: [{ type: 'mcp_toolset', mcp_server_name: 'x' }] }],
    ['tools[0]', { tools: [{ type: 'web_search_20250305', name: 'web_search', max_uses: 1 }] }],
    [
      'messages[0].content[0].source',
      userBlock({ type: 'document', source: { type: 'url', url: 'https://x.test/a.pdf' } }),
    ],
    ['messages[0].content[0].source', userBlock({ type: 'document', source: { type: 'file', file_id: 'file_1' } })],
    ['messages[0].content[0].source', userBlock({ type: 'image', source: { type: 'file', file_id: 'file_1' } })],
    ['messages[0].content[0]', userBlock({ type: 'container_upload', file_id: 'file_1' })],
    [
      'messages[0].content[0].content[0].source',
      userBlock({
        type: 'tool_result',
        tool_use_id: 't',
        content: [{ type: 'document', source: { type: 'url', url: 'https://x.test' } }],
      }),
    ],
  ])('refuses %s', (param, json) => {
    expect(messages(json)).toBe(param);
  });

  it('refuses the top-level fields for a translated model too (the translation refuses the blocks and tools)', () => {
    expect(messages({ mcp_servers: [] }, gpt)).toBe('mcp_servers');
    expect(messages({ speed: 'fast' }, gpt)).toBe('speed');
    expect(messages(userBlock({ type: 'document', source: { type: 'url', url: 'https://x' } }), gpt)).toBeNull();
  });

  it('serves web search where the catalog prices it: max_uses required, within the catalog’s bound, once', () => {
    const search = (tool: Record<string, unknown>) => ({
      tools: [{ type: 'web_search_20250305', name: 'web_search', ...tool }],
    });
    expect(messages(search({}), searching)).toBe('tools[0].max_uses');
    expect(messages(search({ max_uses: 6 }), searching)).toBe('tools[0].max_uses');
    expect(messages(search({ max_uses: 0 }), searching)).toBe('tools[0].max_uses');
    expect(messages(search({ max_uses: 2.5 }), searching)).toBe('tools[0].max_uses');
    expect(messages({ tools: [...search({ max_uses: 1 }).tools, ...search({ max_uses: 1 }).tools] }, searching)).toBe(
      'tools[1]',
    );
    const verdict = requestPolicy('messages', searching, { ...ask, ...search({ max_uses: 3 }) }, null);
    expect(verdict.webSearch).toEqual({ maxUses: 3, perSearch: 0.01 });
  });

  it('bounds a URL document (where enabled) and a PDF at the context length, not a text document', () => {
    const urls = model('anthropic', { features: features({ documentUrls: true }) });
    const url = userBlock({ type: 'document', source: { type: 'url', url: 'https://x.test/a.pdf' } });
    expect(requestPolicy('messages', urls, { ...ask, ...url }, null).inputAtContextLength).toMatch(/URL/);
    const pdf = userBlock({
      type: 'document',
      source: { type: 'base64', media_type: 'application/pdf', data: 'JVBERi0=' },
    });
    expect(requestPolicy('messages', claude, { ...ask, ...pdf }, null).inputAtContextLength).toMatch(/PDF/);
    const text = userBlock({ type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'plain' } });
    expect(requestPolicy('messages', claude, { ...ask, ...text }, null).inputAtContextLength).toBeNull();
  });
});

describe('request policy: OpenAI’s format', () => {
  const chat = (json: Record<string, unknown>) =>
    refusedParam(() => requestPolicy('chat_completions', gpt, { ...ask, ...json }, null));
  const responses = (json: Record<string, unknown>) =>
    refusedParam(() => requestPolicy('responses', gpt, { model: 'm', input: 'hi', ...json }, null));

  it('refuses provider-side search, stored completions, priced tiers, built-in tools and Files API references', () => {
    expect(chat({ web_search_options: {} })).toBe('web_search_options');
    expect(chat({ store: true })).toBe('store');
    expect(chat({ store: false, service_tier: 'default' })).toBeNull();
    expect(chat({ service_tier: 'priority' })).toBe('service_tier');
    expect(chat({ service_tier: 'flex' })).toBe('service_tier');
    expect(chat({ messages: [{ role: 'user', content: [{ type: 'file', file: { file_id: 'file-1' } }] }] })).toBe(
      'messages[0].content[0].file.file_id',
    );
    expect(
      chat({
        messages: [
          { role: 'user', content: [{ type: 'file', file: { file_data: 'data:application/pdf;base64,AA' } }] },
        ],
      }),
    ).toBeNull();
    for (const type of [
      'web_search',
      'web_search_preview',
      'code_interpreter',
      'image_generation',
      'file_search',
      'computer_use_preview',
      'mcp',
    ])
      expect(responses({ tools: [{ type: 'function', name: 'f', parameters: {} }, { type }] })).toBe('tools[1]');
    expect(
      responses({
        tools: [
          { type: 'function', name: 'f' },
          { type: 'custom', name: 'c' },
          { type: 'local_shell' },
          { type: 'apply_patch' },
        ],
      }),
    ).toBeNull();
    // Codex groups its own functions in a namespace: passed; a built-in tool inside one is not.
    const namespace = (tools: unknown[]) => ({ tools: [{ type: 'namespace', name: 'multi_agent_v1', tools }] });
    expect(responses(namespace([{ type: 'function', name: 'spawn_agent', parameters: {} }]))).toBeNull();
    expect(responses(namespace([{ type: 'function', name: 'f' }, { type: 'web_search' }]))).toBe('tools[0].tools[1]');
    expect(responses(namespace([{ type: 'namespace', tools: [] }]))).toBe('tools[0].tools[0]');
    expect(responses({ service_tier: 'scale' })).toBe('service_tier');
    expect(responses({ input: [{ role: 'user', content: [{ type: 'input_file', file_id: 'file-1' }] }] })).toBe(
      'input[0].content[0].file_id',
    );
    expect(responses({ input: [{ role: 'user', content: [{ type: 'input_image', file_id: 'file-1' }] }] })).toBe(
      'input[0].content[0].file_id',
    );
    expect(
      requestPolicy('responses', gpt, { input: [{ type: 'item_reference', id: 'msg_1' }] }, null).inputAtContextLength,
    ).toMatch(/item_reference/);
  });

  it('passes Codex 0.171’s request (fixtures/codex-request.json), and refuses it with Codex’s web search left on', () => {
    const codex = JSON.parse(readFileSync(join(__dirname, 'fixtures', 'codex-request.json'), 'utf8')).body;
    expect(requestPolicy('responses', gpt, codex, null)).toMatchObject({ inputAtContextLength: null });
    const searching = { ...codex, tools: [...codex.tools, { type: 'web_search', external_web_access: false }] };
    expect(refusedParam(() => requestPolicy('responses', gpt, searching, null))).toBe(`tools[${codex.tools.length}]`);
  });

  it('prices images by quality and size where the catalog lists variants, writing the first ones listed as defaults', () => {
    const table = { low: { '1024x1024': 0.01, '1024x1536': 0.02 }, high: { '1024x1024': 0.17 } };
    const images = model('openai', { imagePrices: table, pricing: { perImage: 0.17 } });
    const image = (json: Record<string, unknown>) =>
      requestPolicy('image_generation', images, { prompt: 'p', ...json }, null);
    expect(image({ quality: 'high', size: '1024x1024' })).toMatchObject({ imagePrice: 0.17, writes: {} });
    expect(image({})).toMatchObject({ imagePrice: 0.01, writes: { quality: 'low', size: '1024x1024' } });
    expect(image({ size: '1024x1536' })).toMatchObject({ imagePrice: 0.02, writes: { quality: 'low' } });
    expect(refusedParam(() => image({ quality: 'medium' }))).toBe('quality');
    expect(refusedParam(() => image({ quality: 'high', size: '1024x1536' }))).toBe('size');
    expect(refusedParam(() => image({ partial_images: 2 }))).toBe('partial_images');
    expect(pricedModel(images, image({ quality: 'high' })).pricing.perImage).toBe(0.17);
    // A flat price covers every variant, as before.
    expect(
      requestPolicy('image_generation', gpt, { prompt: 'p', quality: 'hd', size: '9x9' }, null).imagePrice,
    ).toBeNull();
    const form = { fields: new Map([['prompt', ['p']]]), field: (name: string) => form.fields.get(name)?.[0] };
    const edit = requestPolicy('image_edit', images, null, form);
    expect(withWrites({ json: null, raw: null, form }, edit)).toEqual({});
    expect(form.field('quality')).toBe('low');
    const json = { prompt: 'p' };
    expect(withWrites({ json, raw: Buffer.from('{}'), form: null }, image({})).raw!.toString()).toBe(
      '{"prompt":"p","quality":"low","size":"1024x1024"}',
    );
  });
});

describe('what the verdict adds to the reservation, and to the bill', () => {
  const estimate: Estimate = {
    worstMicros: 1000 + 2 * 50,
    minimumMicros: 1002,
    inputTokens: 1000,
    inputWorstMicros: 1000,
    inputEstimate: { inputTokens: 300, requests: 1 },
    inputEstimateMicros: 300,
    output: { tokens: 50, choices: 1, fields: ['max_tokens'], callerLimit: 50 },
  };

  it('bounds the input at the context length, adds client tools’ tokens and perSearch × max_uses', () => {
    const verdict = requestPolicy(
      'messages',
      searching,
      { ...ask, tools: [{ type: 'web_search_20250305', name: 'web_search', max_uses: 4 }] },
      null,
    );
    expect(boundEstimate(estimate, searching, verdict)).toMatchObject({
      worstMicros: 1100 + 40_000,
      minimumMicros: 1002 + 40_000,
      inputWorstMicros: 1000 + 40_000,
    });
    const pdf = { ...verdict, webSearch: null, inputAtContextLength: 'a PDF document' };
    expect(boundEstimate(estimate, searching, pdf)).toMatchObject({
      inputTokens: 100_000,
      worstMicros: 100_000 + 100,
      inputEstimate: { inputTokens: 100_000 },
      inputEstimateMicros: 100_000,
    });
    expect(() => boundEstimate(estimate, model('anthropic', { contextLength: null }), pdf)).toThrow(
      /context length is unknown/,
    );
    expect(
      boundEstimate(estimate, claude, { ...pdf, inputAtContextLength: null, extraInputTokens: 1200 }).inputTokens,
    ).toBe(2200);
  });

  it('bills each search once, the larger of what was reported and what was relayed, never above max_uses', () => {
    const call = {
      policy: { ...requestPolicy('messages', claude, ask, null), webSearch: { maxUses: 3, perSearch: 0.01 } },
      featureUse: noFeatureUse(),
    };
    const start = (name: string) =>
      JSON.stringify({
        type: 'content_block_start',
        index: 1,
        content_block: { type: 'server_tool_use', id: 's', name },
      });
    noteFeatureUse(call, start('web_search'));
    noteFeatureUse(call, start('code_execution'));
    expect(featureCostMicros(call)).toBe(10_000);
    noteFeatureUse(
      call,
      JSON.stringify({ type: 'message_delta', usage: { server_tool_use: { web_search_requests: 2 } } }),
    );
    expect(featureCostMicros(call)).toBe(20_000);
    noteFeatureUse(call, { content: [], usage: { server_tool_use: { web_search_requests: 9 } } });
    expect(featureCostMicros(call)).toBe(30_000);
    expect(featureCostMicros({ policy: null, featureUse: call.featureUse })).toBe(0);
  });
});

describe('anthropic-beta', () => {
  it('passes the documented values, drops the others, and the long-context beta only for a long-context model', () => {
    const header =
      'claude-code-20250219, interleaved-thinking-2025-05-14,code-execution-2025-05-22,mcp-client-2025-04-04,files-api-2025-04-14,context-1m-2025-08-07,interleaved-thinking-2025-05-14';
    expect(filterBetas(header, claude)).toEqual({
      passed: 'claude-code-20250219,interleaved-thinking-2025-05-14',
      dropped: ['code-execution-2025-05-22', 'mcp-client-2025-04-04', 'files-api-2025-04-14', 'context-1m-2025-08-07'],
    });
    expect(
      filterBetas(['context-1m-2025-08-07', 'effort-2025-11-24'], model('anthropic', { contextLength: 1_000_000 }))
        .passed,
    ).toBe('context-1m-2025-08-07,effort-2025-11-24');
    expect(filterBetas('x'.repeat(3000), claude)).toEqual({ passed: null, dropped: ['(a header over 2 KB)'] });
    expect(filterBetas(undefined, claude)).toEqual({ passed: null, dropped: [] });
  });
});
