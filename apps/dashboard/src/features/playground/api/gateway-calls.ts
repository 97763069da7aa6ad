import { queryOptions, useMutation, useQuery } from '@tanstack/react-query';

import { gatewayFetch } from '../../../lib/gateway';
import type { GatewayCredential } from '../../../lib/gateway';
import type { EmbeddingsRequestBody, ImageRequestBody, SpeechRequestBody, VideoRequestBody } from '../lib/snippets';

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

export interface EmbeddingsResult {
  vectors: { index: number; embedding: number[] }[];
  promptTokens: number | null;
  cost: number | null;
}

/** POST /v1/embeddings, as floats. */
export async function createEmbeddings(
  apiKey: GatewayCredential,
  body: EmbeddingsRequestBody,
): Promise<EmbeddingsResult> {
  const response = await gatewayFetch('/embeddings', { apiKey, json: body });
  const json = (await response.json()) as {
    data?: { index: number; embedding: number[] }[];
    usage?: { prompt_tokens?: number };
  };
  return {
    vectors: json.data ?? [],
    promptTokens: typeof json.usage?.prompt_tokens === 'number' ? json.usage.prompt_tokens : null,
    cost: cost(response.headers),
  };
}

export function useCreateEmbeddings(apiKey: GatewayCredential, onSettled: () => void) {
  return useMutation({
    mutationFn: (body: EmbeddingsRequestBody) => createEmbeddings(apiKey, body),
    gcTime: 0,
    onSettled,
  });
}

/** A video job as OpenAI's API answers it (POST /v1/videos, GET /v1/videos/{id}). */
export interface VideoJob {
  id: string;
  /** queued, in_progress, completed or failed. */
  status: string;
  progress?: number;
  seconds?: string;
  size?: string;
  error?: { message?: string } | null;
}

/** POST /v1/videos: the job (billed when it is created); `cost` from the answer. */
export async function createVideo(
  apiKey: GatewayCredential,
  body: VideoRequestBody,
): Promise<{ job: VideoJob; cost: number | null }> {
  const response = await gatewayFetch('/videos', { apiKey, json: body });
  return { job: (await response.json()) as VideoJob, cost: cost(response.headers) };
}

export async function retrieveVideo(apiKey: GatewayCredential, id: string, signal?: AbortSignal): Promise<VideoJob> {
  const response = await gatewayFetch(`/videos/${encodeURIComponent(id)}`, { apiKey, signal });
  return (await response.json()) as VideoJob;
}

export async function videoContent(apiKey: GatewayCredential, id: string, signal?: AbortSignal): Promise<Blob> {
  const response = await gatewayFetch(`/videos/${encodeURIComponent(id)}/content`, { apiKey, signal });
  return response.blob();
}

export function useCreateVideo(apiKey: GatewayCredential, onSettled: () => void) {
  return useMutation({ mutationFn: (body: VideoRequestBody) => createVideo(apiKey, body), gcTime: 0, onSettled });
}

const FINAL = new Set(['completed', 'failed']);

/** The job's status, asked again every 2 s until it is completed or failed. */
export const videoJobQuery = (apiKey: GatewayCredential, id: string | null) =>
  queryOptions({
    queryKey: ['playground-video', apiKey ? 'key' : 'session', id],
    queryFn: ({ signal }) => retrieveVideo(apiKey, id!, signal),
    enabled: id !== null,
    gcTime: 0,
    refetchInterval: (query) => (query.state.data && FINAL.has(query.state.data.status) ? false : 2000),
  });

export function useVideoJob(apiKey: GatewayCredential, id: string | null) {
  return useQuery(videoJobQuery(apiKey, id));
}

/** The finished video's bytes. */
export const videoContentQuery = (apiKey: GatewayCredential, id: string | null, ready: boolean) =>
  queryOptions({
    queryKey: ['playground-video-content', apiKey ? 'key' : 'session', id],
    queryFn: ({ signal }) => videoContent(apiKey, id!, signal),
    enabled: id !== null && ready,
    gcTime: 0,
    staleTime: Infinity,
  });

export function useVideoContent(apiKey: GatewayCredential, id: string | null, ready: boolean) {
  return useQuery(videoContentQuery(apiKey, id, ready));
}
