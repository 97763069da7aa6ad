import { useMutation } from '@tanstack/react-query';

import { gatewayFetch } from '../../../lib/gateway';
import type { GatewayCredential } from '../../../lib/gateway';
import type { ImageRequestBody, SpeechRequestBody } from '../lib/snippets';

export interface ImageResult {
  images: { url?: string; b64_json?: string; revised_prompt?: string }[];
  cost: number | null;
}

export interface SpeechResult {
  audio: Blob;
  cost: number | null;
}

export interface TranscriptionRequest {
  model: string;
  file: File;
  language?: string;
}

export interface TranscriptionResult {
  text: string;
  cost: number | null;
}

function cost(headers: Headers): number | null {
  const value = Number(headers.get('x-switchyard-cost'));
  return headers.has('x-switchyard-cost') && Number.isFinite(value) ? value : null;
}

/** POST /v1/images/generations. A model answers with url or b64_json (docs/decisions.md#rules-for-clients): both are kept. */
export async function generateImages(apiKey: GatewayCredential, body: ImageRequestBody): Promise<ImageResult> {
  const response = await gatewayFetch('/images/generations', { apiKey, json: body });
  const json = (await response.json()) as { data?: ImageResult['images'] };
  return { images: json.data ?? [], cost: cost(response.headers) };
}

/** POST /v1/audio/speech: the audio, typed by the answer's content type. */
export async function createSpeech(apiKey: GatewayCredential, body: SpeechRequestBody): Promise<SpeechResult> {
  const response = await gatewayFetch('/audio/speech', { apiKey, json: body });
  return { audio: await response.blob(), cost: cost(response.headers) };
}

/** POST /v1/audio/transcriptions as multipart. */
export async function transcribe(
  apiKey: GatewayCredential,
  request: TranscriptionRequest,
): Promise<TranscriptionResult> {
  const form = new FormData();
  form.append('file', request.file, request.file.name);
  form.append('model', request.model);
  if (request.language) form.append('language', request.language);
  const response = await gatewayFetch('/audio/transcriptions', { apiKey, form });
  const type = response.headers.get('content-type') ?? '';
  const text = type.includes('json')
    ? String(((await response.json()) as { text?: unknown }).text ?? '')
    : await response.text();
  return { text, cost: cost(response.headers) };
}

// The answers hold the user's pictures, audio and words: gcTime 0 drops them from the cache with the panel.
export function useGenerateImages(apiKey: GatewayCredential, onSettled: () => void) {
  return useMutation({ mutationFn: (body: ImageRequestBody) => generateImages(apiKey, body), gcTime: 0, onSettled });
}

export function useCreateSpeech(apiKey: GatewayCredential, onSettled: () => void) {
  return useMutation({ mutationFn: (body: SpeechRequestBody) => createSpeech(apiKey, body), gcTime: 0, onSettled });
}

export function useTranscribe(apiKey: GatewayCredential, onSettled: () => void) {
  return useMutation({
    mutationFn: (request: TranscriptionRequest) => transcribe(apiKey, request),
    gcTime: 0,
    onSettled,
  });
}
