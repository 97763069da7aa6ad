import type { HandlerContext } from './context';
import { chatCompletions, completions } from './demo-chat';
import { embeddings } from './demo-embeddings';
import { imageEdit, imageGeneration, imageVariation } from './demo-images';
import { speech, transcription } from './demo-audio';
import { responses } from './demo-responses';
import { createVideo, remixVideo, retrieveVideo, videoContent, VideoStore, type VideoCallContext } from './demo-video';
import { DemoError, errorResponse } from './errors';

/**
 * The `demo` provider: what the gateway serves when no MODELS_CONFIG is given (docs/demo-provider.md). It answers
 * every method offline and deterministically, in OpenAI's exact wire format (so the official SDKs parse it),
 * with real token counts, real SSE streaming and real media files (PNG, WAV, MP4). docs/demo-provider.md
 * describes each method and the honest limits.
 *
 * The gateway engine calls `handle` with the parsed request and gets back the Response OpenAI would have sent.
 */

export type DemoMethod =
  | 'chat_completions'
  | 'completions'
  | 'responses'
  | 'embeddings'
  | 'image_generation'
  | 'image_edit'
  | 'image_variation'
  | 'audio_speech'
  | 'audio_transcription'
  | 'video_generation'
  | 'video_retrieve'
  | 'video_content'
  | 'video_remix';

export interface DemoCall {
  method: DemoMethod;
  /** The model id the caller used; echoed in `model` fields. */
  publicModel: string;
  /** Parsed JSON body for JSON endpoints. */
  json?: unknown; // the engine's contract: any parsed JSON, checked by each handler
  /** Parsed multipart body for image_edit, image_variation, audio_transcription (files are Blob/File). */
  form?: FormData;
  /** For video_retrieve / video_content / video_remix. */
  videoId?: string;
  /** Opaque owner id: a video job is only visible to the same userKey (404 otherwise). */
  userKey?: string;
}

export interface DemoOptions {
  /** Pause between streamed chunks, in ms. Default 15. */
  chunkDelayMs?: number;
  /** How long a video job takes, in seconds. Default 3. */
  videoSeconds?: number;
  /** Clock in ms (tests pass a fake one). Default Date.now. */
  now?: () => number;
}

export const DEMO_OWNED_BY = 'switchyard-demo';

export class DemoProvider {
  private readonly chunkDelayMs: number;
  private readonly videoMs: number;
  private readonly now: () => number;
  /** Video jobs live as long as the provider instance (the gateway keeps one). */
  private readonly videos = new VideoStore();

  constructor(options: DemoOptions = {}) {
    this.chunkDelayMs = Math.max(0, options.chunkDelayMs ?? 15);
    this.videoMs = Math.max(0, options.videoSeconds ?? 3) * 1000;
    this.now = options.now ?? Date.now;
  }

  async handle(call: DemoCall, signal?: AbortSignal): Promise<Response> {
    // Like fetch: a call whose signal is already aborted rejects with the abort reason.
    signal?.throwIfAborted();
    const ctx: HandlerContext = { nowMs: this.now(), pacing: { delayMs: this.chunkDelayMs, signal } };
    try {
      return await this.dispatch(call, ctx);
    } catch (error) {
      if (error instanceof DemoError) return errorResponse(error);
      // A bug in the demo, not the caller's fault: answer like OpenAI's 500 rather than crash the engine.
      const message = error instanceof Error ? error.message : String(error);
      return errorResponse(new DemoError(500, `The demo provider failed: ${message}`, null, null, 'server_error'));
    }
  }

  private async dispatch(call: DemoCall, ctx: HandlerContext): Promise<Response> {
    const model = call.publicModel;
    const video = (): VideoCallContext => ({
      ...ctx,
      store: this.videos,
      owner: call.userKey ?? '',
      videoMs: this.videoMs,
    });
    switch (call.method) {
      case 'chat_completions':
        return chatCompletions(call.json, model, ctx);
      case 'completions':
        return completions(call.json, model, ctx);
      case 'responses':
        return responses(call.json, model, ctx);
      case 'embeddings':
        return embeddings(call.json, model);
      case 'image_generation':
        return imageGeneration(call.json, ctx);
      case 'image_edit':
        return imageEdit(call.form, ctx);
      case 'image_variation':
        return imageVariation(call.form, ctx);
      case 'audio_speech':
        return speech(call.json, ctx);
      case 'audio_transcription':
        return transcription(call.form, ctx);
      case 'video_generation':
        return createVideo(call.json, call.form, model, video());
      case 'video_retrieve':
        return retrieveVideo(call.videoId, video());
      case 'video_content':
        return videoContent(call.videoId, video());
      case 'video_remix':
        return remixVideo(call.videoId, call.json, call.form, video());
      default: {
        const method: never = call.method;
        throw new DemoError(
          400,
          `The demo provider does not support the method '${String(method)}'.`,
          null,
          'unsupported_method',
        );
      }
    }
  }
}
