/**
 * The subset of the Gemini API (generativelanguage v1beta) wire format that the gateway writes and reads: the Gemini
 * provider's translator writes requests and reads answers (providers/gemini/), the Gemini face reads requests and
 * writes answers (faces/gemini/).
 * Reference: https://ai.google.dev/api/generate-content (request, response, streaming),
 * https://ai.google.dev/gemini-api/docs/function-calling (tools), https://ai.google.dev/api/caching#Content (parts).
 * Requests use the field spellings of the docs' REST examples (`inline_data`/`mime_type` in snake case, which the
 * proto JSON mapping accepts as well as camelCase); responses come back in camelCase.
 */

export interface GeminiPart {
  text?: string;
  inline_data?: { mime_type: string; data: string };
  functionCall?: { name: string; args: Record<string, unknown> };
  functionResponse?: { name: string; response: Record<string, unknown> };
  /** Opaque reasoning state Gemini 3 requires back on function calls (see GEMINI_SKIP_THOUGHT_SIGNATURE). */
  thoughtSignature?: string;
}

export interface GeminiContent {
  role: 'user' | 'model';
  parts: GeminiPart[];
}

export interface GeminiFunctionDeclaration {
  name: string;
  description?: string;
  parameters?: Record<string, unknown>;
}

export interface GeminiToolConfig {
  functionCallingConfig: { mode: 'AUTO' | 'ANY' | 'NONE'; allowedFunctionNames?: string[] };
}

export interface GeminiGenerationConfig {
  maxOutputTokens?: number;
  temperature?: number;
  topP?: number;
  stopSequences?: string[];
  candidateCount?: number;
  seed?: number;
  presencePenalty?: number;
  frequencyPenalty?: number;
  responseMimeType?: string;
  responseSchema?: Record<string, unknown>;
}

export interface GeminiRequest {
  contents: GeminiContent[];
  systemInstruction?: { parts: Array<{ text: string }> };
  generationConfig?: GeminiGenerationConfig;
  tools?: Array<{ functionDeclarations: GeminiFunctionDeclaration[] }>;
  toolConfig?: GeminiToolConfig;
}

/**
 * The documented stand-in for a missing thought signature. Gemini 3 rejects a replayed function call without the
 * signature it was returned with; OpenAI clients cannot carry that signature back, so replayed calls carry this
 * value, which the API accepts in place of a real one.
 * https://ai.google.dev/gemini-api/docs/thought-signatures (FAQ: "transferring a trace from a different model")
 */
export const GEMINI_SKIP_THOUGHT_SIGNATURE = 'skip_thought_signature_validator';

/** A function call part as the face writes it (the provider reads `functionCall` parts the same way). */
export interface GeminiFunctionCall {
  name: string;
  args: Record<string, unknown>;
  /** The call's id, which a client sends back on its functionResponse (Gemini's API gives it when it has one). */
  id?: string;
}

/** A part of an answer the face writes: text (a thought when `thought`), or a function call. */
export interface GeminiAnswerPart {
  text?: string;
  thought?: true;
  functionCall?: GeminiFunctionCall;
}

/** `usageMetadata`: promptTokenCount includes the cached tokens; thoughts are apart from the candidates' tokens. */
export interface GeminiUsageMetadata {
  promptTokenCount: number;
  candidatesTokenCount: number;
  totalTokenCount: number;
  cachedContentTokenCount?: number;
  thoughtsTokenCount?: number;
}

/** A GenerateContentResponse, or one chunk of a stream of them. */
export interface GeminiResponse {
  candidates: {
    content: { role: 'model'; parts: GeminiAnswerPart[] };
    finishReason?: string;
    index: number;
  }[];
  usageMetadata?: GeminiUsageMetadata;
  modelVersion: string;
  responseId: string;
}
