import type { CatalogModel } from '../../catalog/catalog.types';
import { GatewayException } from '../../errors/gateway.exception';
import { GeminiStreamTranslator, toGeminiResponse } from './gemini-answer';
import { GEMINI_ERRORS, googleError } from './gemini-errors';
import { geminiPolicy } from './gemini-policy';
import { thoughtsAsked, toChatRequest } from './gemini-request';
import { toJsonSchema } from './gemini-schema';

const model = (extra: Partial<CatalogModel> = {}) =>
  ({ id: 'm', maxTokensParam: 'max_tokens', capabilities: [], ...extra }) as unknown as CatalogModel;
const translate = (json: Record<string, unknown>, stream = false, on = model()) => {
  const dropped: string[] = [];
  const chat = toChatRequest(json, on, stream, (fields) => dropped.push(...fields));
  return { chat, dropped };
};
/** The field a refusal names (its `param`). */
function refusedParam(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(GatewayException);
    expect((error as GatewayException).status).toBe(400);
    return (error as GatewayException).options.details![0].field;
  }
  throw new Error('expected a refusal');
}
const user = (...parts: object[]) => ({ contents: [{ role: 'user', parts }] });

describe('a GenerateContentRequest as a chat completion', () => {
  it('reads both spellings, the system instruction, inline images, audio and PDFs, and the generation config', () => {
    const { chat, dropped } = translate({
      system_instruction: { parts: [{ text: 'Be brief.' }, { text: 'Be kind.' }] },
      contents: [
        {
          role: 'user',
          parts: [
            { text: 'Look' },
            { inline_data: { mime_type: 'image/png', data: 'iVBOR' } },
            { inlineData: { mimeType: 'audio/wav', data: 'UklG' } },
            { inlineData: { mimeType: 'application/pdf', data: 'JVBE' } },
            { fileData: { mimeType: 'image/jpeg', fileUri: 'https://example.com/a.jpg' } },
          ],
        },
      ],
      generation_config: { max_output_tokens: 50, topP: 0.9, topK: 3, candidateCount: 2, seed: 7 },
      safetySettings: [{ category: 'HARM_CATEGORY_HATE_SPEECH', threshold: 'BLOCK_NONE' }],
    });
    expect(chat).toEqual({
      model: 'm',
      messages: [
        { role: 'system', content: 'Be brief.\nBe kind.' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Look' },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBOR' } },
            { type: 'input_audio', input_audio: { data: 'UklG', format: 'wav' } },
            { type: 'file', file: { filename: 'document.pdf', file_data: 'data:application/pdf;base64,JVBE' } },
            { type: 'image_url', image_url: { url: 'https://example.com/a.jpg' } },
          ],
        },
      ],
      max_tokens: 50,
      top_p: 0.9,
      n: 2,
      seed: 7,
    });
    expect(dropped).toEqual(['generationConfig.topK', 'safetySettings']);
  });

  it('carries function calls and their responses by id, or by name in order when the caller gives no id', () => {
    const { chat } = translate({
      contents: [
        { role: 'user', parts: [{ text: 'Weather?' }] },
        {
          role: 'model',
          parts: [
            { thought: true, text: 'I should call it.' },
            { functionCall: { name: 'weather', args: { city: 'Paris' } }, thoughtSignature: 'sig' },
            { functionCall: { name: 'weather', args: { city: 'Rome' } } },
          ],
        },
        {
          role: 'user',
          parts: [
            { functionResponse: { name: 'weather', response: { sky: 'rain' } } },
            { functionResponse: { name: 'weather', response: { sky: 'sun' } } },
          ],
        },
      ],
    });
    expect(chat.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'Weather?' }] },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'call_0', type: 'function', function: { name: 'weather', arguments: '{"city":"Paris"}' } },
          { id: 'call_1', type: 'function', function: { name: 'weather', arguments: '{"city":"Rome"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_0', content: '{"sky":"rain"}' },
      { role: 'tool', tool_call_id: 'call_1', content: '{"sky":"sun"}' },
    ]);
  });

  it('asks for the usage chunk on a stream, maps the calling modes, and keeps only allowed functions', () => {
    const tools = [{ functionDeclarations: [{ name: 'a' }, { name: 'b', parametersJsonSchema: { type: 'object' } }] }];
    const { chat } = translate(
      {
        ...user({ text: 'x' }),
        tools,
        toolConfig: { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['b'] } },
      },
      true,
    );
    expect(chat).toMatchObject({
      stream: true,
      stream_options: { include_usage: true },
      tools: [{ type: 'function', function: { name: 'b', parameters: { type: 'object' } } }],
      tool_choice: { type: 'function', function: { name: 'b' } },
    });
    expect(
      translate({ ...user({ text: 'x' }), tools, toolConfig: { functionCallingConfig: { mode: 'NONE' } } }).chat
        .tool_choice,
    ).toBe('none');
  });

  it('answers JSON with a schema, and thinking levels for a reasoning model only', () => {
    const config = {
      responseMimeType: 'application/json',
      responseSchema: { type: 'OBJECT', properties: { n: { type: 'INTEGER' } } },
      thinkingConfig: { thinkingLevel: 'HIGH', includeThoughts: true },
    };
    const reasoning = translate(
      { ...user({ text: 'x' }), generationConfig: config },
      false,
      model({ capabilities: ['reasoning'] }),
    );
    expect(reasoning.chat).toMatchObject({
      response_format: {
        type: 'json_schema',
        json_schema: { name: 'response', schema: { type: 'object', properties: { n: { type: 'integer' } } } },
      },
      reasoning_effort: 'high',
    });
    expect(translate({ ...user({ text: 'x' }), generationConfig: config }).dropped).toEqual([
      'generationConfig.thinkingConfig',
    ]);
    expect(thoughtsAsked({ generationConfig: config })).toBe(true);
  });

  it.each([
    ['contents', {}],
    ['contents', { contents: [] }],
    ['contents[0].role', { contents: [{ role: 'system', parts: [{ text: 'x' }] }] }],
    ['contents[0].parts[0].inlineData.mimeType', user({ inlineData: { mimeType: 'video/mp4', data: 'AAAA' } })],
    ['contents[0].parts[0].fileData', user({ fileData: { fileUri: 'gs://bucket/x.png', mimeType: 'image/png' } })],
    ['contents[0].parts[0]', user({ executableCode: { language: 'PYTHON', code: 'print(1)' } })],
    ['contents[0].parts[0]', user({ functionCall: { name: 'f', args: {} } })],
    [
      'generationConfig.responseModalities',
      { ...user({ text: 'x' }), generationConfig: { responseModalities: ['IMAGE'] } },
    ],
    ['generationConfig.responseLogprobs', { ...user({ text: 'x' }), generationConfig: { responseLogprobs: true } }],
    ['generationConfig.temperature', { ...user({ text: 'x' }), generationConfig: { temperature: 'hot' } }],
    [
      'toolConfig.functionCallingConfig.mode',
      { ...user({ text: 'x' }), toolConfig: { functionCallingConfig: { mode: 'SOME' } } },
    ],
  ])('refuses %s', (param, json) => {
    expect(refusedParam(() => translate(json))).toBe(param);
  });

  it('refuses what Google would run or read on the provider account, by name; functions pass', () => {
    expect(refusedParam(() => geminiPolicy({ tools: [{ functionDeclarations: [] }, { google_search: {} }] }))).toBe(
      'tools[1].googleSearch',
    );
    expect(refusedParam(() => geminiPolicy({ tools: [{ codeExecution: {} }] }))).toBe('tools[0].codeExecution');
    expect(refusedParam(() => geminiPolicy({ tools: [{ urlContext: {} }] }))).toBe('tools[0].urlContext');
    expect(refusedParam(() => geminiPolicy({ cachedContent: 'cachedContents/x' }))).toBe('cachedContent');
    expect(geminiPolicy({ tools: [{ functionDeclarations: [{ name: 'f' }] }] }).inputAtContextLength).toBeNull();
  });

  it('turns Gemini’s schema into JSON Schema, nullable types included, and bounds its depth', () => {
    expect(
      toJsonSchema({
        type: 'ARRAY',
        items: { type: 'STRING', enum: ['a'], nullable: true },
        minItems: 1,
        propertyOrdering: ['x'],
      }),
    ).toEqual({ type: 'array', items: { type: ['string', 'null'], enum: ['a'] }, minItems: 1 });
    let deep: Record<string, unknown> = { type: 'STRING' };
    for (let i = 0; i < 100; i += 1) deep = { type: 'ARRAY', items: deep };
    expect(JSON.stringify(toJsonSchema(deep)).length).toBeLessThan(2000);
  });
});

describe('a chat completion as Gemini’s answer', () => {
  it('writes text, thoughts only when asked, function calls with their ids, the finish reason and the usage', () => {
    const completion = {
      choices: [
        {
          index: 0,
          finish_reason: 'tool_calls',
          message: {
            content: 'Checking.',
            reasoning_content: 'Hmm.',
            tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'f', arguments: '{"a":1}' } }],
          },
        },
      ],
      usage: {
        prompt_tokens: 10,
        completion_tokens: 5,
        prompt_tokens_details: { cached_tokens: 4 },
        completion_tokens_details: { reasoning_tokens: 2 },
      },
    };
    const answer = toGeminiResponse(completion, 'm', true);
    expect(answer.candidates).toEqual([
      {
        content: {
          role: 'model',
          parts: [
            { text: 'Hmm.', thought: true },
            { text: 'Checking.' },
            { functionCall: { name: 'f', args: { a: 1 }, id: 'call_1' } },
          ],
        },
        finishReason: 'STOP',
        index: 0,
      },
    ]);
    expect(answer.usageMetadata).toEqual({
      promptTokenCount: 10,
      cachedContentTokenCount: 4,
      candidatesTokenCount: 3,
      thoughtsTokenCount: 2,
      totalTokenCount: 15,
    });
    expect(toGeminiResponse(completion, 'm', false).candidates[0].content.parts[0]).toEqual({ text: 'Checking.' });
  });

  it('streams text as it comes and each candidate’s function calls whole at the end, with the usage, once', () => {
    const stream = new GeminiStreamTranslator('m', false);
    const chunk = (choices: object[], usage?: object) => JSON.stringify({ choices, ...(usage ? { usage } : {}) });
    const events = [
      stream.push(
        chunk([
          { index: 0, delta: { role: 'assistant', content: 'Hel' } },
          { index: 1, delta: { content: 'Yo' } },
        ]),
      ),
      stream.push(
        chunk([
          { index: 0, delta: { tool_calls: [{ index: 0, id: 'c', function: { name: 'f', arguments: '{"x"' } }] } },
        ]),
      ),
      stream.push(
        chunk([
          {
            index: 0,
            delta: { tool_calls: [{ index: 0, function: { arguments: ':2}' } }] },
            finish_reason: 'tool_calls',
          },
        ]),
      ),
      stream.push(chunk([{ index: 1, delta: {}, finish_reason: 'length' }])),
      stream.push(chunk([], { prompt_tokens: 3, completion_tokens: 4 })),
      stream.push('not json'),
      stream.push('[DONE]'),
      stream.end(),
    ];
    const parsed = events.filter(Boolean).map((event) => {
      expect(event).toMatch(/^data: .*\r\n\r\n$/);
      return JSON.parse(event.slice(6));
    });
    expect(parsed.map((response) => response.candidates)).toEqual([
      [
        { content: { role: 'model', parts: [{ text: 'Hel' }] }, index: 0 },
        { content: { role: 'model', parts: [{ text: 'Yo' }] }, index: 1 },
      ],
      [
        {
          content: { role: 'model', parts: [{ functionCall: { name: 'f', args: { x: 2 }, id: 'c' } }] },
          finishReason: 'STOP',
          index: 0,
        },
        { content: { role: 'model', parts: [] }, finishReason: 'MAX_TOKENS', index: 1 },
      ],
    ]);
    expect(parsed.at(-1).usageMetadata).toEqual({ promptTokenCount: 3, candidatesTokenCount: 4, totalTokenCount: 7 });
    expect(new Set(parsed.map((response) => response.responseId)).size).toBe(1);
  });
});

describe('errors in Google’s shape', () => {
  it('keeps the gateway’s code as the ErrorInfo reason, whatever it is', () => {
    const error = new GatewayException('INVALID_REQUEST' as never, 'bad', { status: 429 });
    expect(googleError(429, error)).toEqual({
      error: {
        code: 429,
        message: 'bad',
        status: 'RESOURCE_EXHAUSTED',
        details: [
          { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'INVALID_REQUEST', domain: 'switchyard' },
        ],
      },
    });
  });

  it('owns its own paths only: its three actions under /v1, all of /v1beta/models/', () => {
    expect(GEMINI_ERRORS.owns('/v1/models/gpt:generatecontent')).toBe(true);
    expect(GEMINI_ERRORS.owns('/apikey/v1/models/gpt:counttokens')).toBe(true);
    expect(GEMINI_ERRORS.owns('/oauth2/v1beta/models/gpt:embedcontent')).toBe(true);
    expect(GEMINI_ERRORS.owns('/v1/models/ft:gpt-4o:my-org:custom')).toBe(false);
    expect(GEMINI_ERRORS.owns('/v1/chat/completions')).toBe(false);
    expect(GEMINI_ERRORS.owns('/v1beta/x')).toBe(false);
  });
});
