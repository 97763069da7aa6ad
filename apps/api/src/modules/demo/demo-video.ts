import { randomBytes } from 'node:crypto';
import type { HandlerContext } from './context';
import { DemoError, invalid, jsonResponse } from './errors';
import { checkEnum, formFields, isObject, requiredString, type JsonObject } from './fields';
import { encodeH264 } from './h264';
import { seedFromHex, sha256Hex } from './hash';
import { muxMp4 } from './mp4';
import { renderPattern } from './pattern';
import { binaryResponse } from './streaming';

/**
 * The video endpoints (POST /v1/videos, GET /v1/videos/{id}, GET /v1/videos/{id}/content,
 * POST /v1/videos/{id}/remix). A job lives in memory (bounded; the oldest is evicted first) and its status is a
 * pure function of the clock: `queued` for the first 20% of `videoSeconds`, then `in_progress` with a rising
 * `progress`, then `completed`. The content is a real MP4 (H.264, see h264.ts) of the demo pattern in motion,
 * rendered when downloaded, at a small resolution (96 px on the long side, 4 frames per second) with the
 * track header asking players to show it at the requested size.
 */

export const VIDEO_SIZES = ['720x1280', '1280x720', '1024x1792', '1792x1024'] as const;
export const VIDEO_SECONDS = ['4', '8', '12'] as const;
const MAX_JOBS = 1000;
const LONG_SIDE = 96;
const FPS = 4;

export interface VideoJob {
  id: string;
  owner: string;
  model: string;
  prompt: string;
  seconds: (typeof VIDEO_SECONDS)[number];
  size: (typeof VIDEO_SIZES)[number];
  createdMs: number;
  remixedFrom: string | null;
  /** What the picture is seeded from: the prompt, plus the source's seed for a remix. */
  seed: string;
}

/** In-memory jobs, in creation order, at most `maxJobs` (the oldest is dropped first). */
export class VideoStore {
  private readonly jobs = new Map<string, VideoJob>();

  constructor(private readonly maxJobs = MAX_JOBS) {}

  add(job: VideoJob): void {
    this.jobs.set(job.id, job);
    while (this.jobs.size > this.maxJobs) {
      const oldest = this.jobs.keys().next().value;
      if (oldest === undefined) break;
      this.jobs.delete(oldest);
    }
  }

  /** The job if it exists and belongs to `owner`; another owner's job is indistinguishable from none. */
  find(id: string, owner: string): VideoJob | undefined {
    const job = this.jobs.get(id);
    return job && job.owner === owner ? job : undefined;
  }

  get size(): number {
    return this.jobs.size;
  }
}

export interface VideoCallContext extends HandlerContext {
  store: VideoStore;
  owner: string;
  videoMs: number;
}

function status(job: VideoJob, ctx: VideoCallContext) {
  const elapsed = ctx.nowMs - job.createdMs;
  if (elapsed >= ctx.videoMs) {
    return { status: 'completed', progress: 100, completed_at: Math.floor((job.createdMs + ctx.videoMs) / 1000) };
  }
  if (elapsed < ctx.videoMs * 0.2) return { status: 'queued', progress: 0, completed_at: null };
  return {
    status: 'in_progress',
    progress: Math.min(99, Math.max(1, Math.floor((elapsed / ctx.videoMs) * 100))),
    completed_at: null,
  };
}

function videoObject(job: VideoJob, ctx: VideoCallContext) {
  const state = status(job, ctx);
  return {
    id: job.id,
    object: 'video',
    model: job.model,
    status: state.status,
    progress: state.progress,
    created_at: Math.floor(job.createdMs / 1000),
    completed_at: state.completed_at,
    // The demo does not expire content on a timer; a job only disappears when evicted.
    expires_at: null,
    prompt: job.prompt,
    size: job.size,
    seconds: job.seconds,
    remixed_from_video_id: job.remixedFrom,
    error: null,
  };
}

function notFound(id: string | undefined): DemoError {
  return new DemoError(404, `Video with id '${id ?? ''}' not found.`, null, 'video_not_found');
}

function visibleJob(id: string | undefined, ctx: VideoCallContext): VideoJob {
  const job = id ? ctx.store.find(id, ctx.owner) : undefined;
  if (!job) throw notFound(id);
  return job;
}

function completedJob(id: string | undefined, ctx: VideoCallContext): VideoJob {
  const job = visibleJob(id, ctx);
  if (status(job, ctx).status !== 'completed') {
    throw new DemoError(
      409,
      `Video '${job.id}' is not ready yet: its status is '${status(job, ctx).status}'. Poll GET /v1/videos/${job.id} until it is 'completed'.`,
      null,
      'video_not_ready',
    );
  }
  return job;
}

function newId(): string {
  return `video_${randomBytes(24).toString('hex')}`;
}

/** The JSON body, or the multipart fields (the official SDK sends this endpoint as multipart/form-data). */
function createFields(json: unknown, form: FormData | undefined): JsonObject {
  if (form) return formFields(form, ['prompt', 'model', 'seconds', 'size']);
  if (!isObject(json)) throw invalid('We could not parse the JSON body of your request.', null, null);
  const { prompt, model, seconds, size } = json;
  // seconds is a string enum in OpenAI's API; accept a number as a convenience.
  return { prompt, model, size, seconds: typeof seconds === 'number' ? String(seconds) : seconds };
}

export function createVideo(json: unknown, form: FormData | undefined, model: string, ctx: VideoCallContext): Response {
  const fields = createFields(json, form);
  const prompt = requiredString(fields, 'prompt', { maxLength: 32000 });
  const seconds = fields.seconds == null ? '4' : checkEnum('seconds', String(fields.seconds), VIDEO_SECONDS);
  const size = fields.size == null ? '720x1280' : checkEnum('size', String(fields.size), VIDEO_SIZES);
  const job: VideoJob = {
    id: newId(),
    owner: ctx.owner,
    model,
    prompt,
    seconds,
    size,
    createdMs: ctx.nowMs,
    remixedFrom: null,
    seed: sha256Hex('video', prompt),
  };
  ctx.store.add(job);
  return jsonResponse(videoObject(job, ctx));
}

export function retrieveVideo(id: string | undefined, ctx: VideoCallContext): Response {
  return jsonResponse(videoObject(visibleJob(id, ctx), ctx));
}

export function remixVideo(
  id: string | undefined,
  json: unknown,
  form: FormData | undefined,
  ctx: VideoCallContext,
): Response {
  const source = completedJob(id, ctx);
  const fields = form ? formFields(form, ['prompt']) : isObject(json) ? json : {};
  const prompt = requiredString(fields, 'prompt', { maxLength: 32000 });
  const job: VideoJob = {
    ...source,
    id: newId(),
    prompt,
    createdMs: ctx.nowMs,
    remixedFrom: source.id,
    seed: sha256Hex('remix', source.seed, prompt),
  };
  ctx.store.add(job);
  return jsonResponse(videoObject(job, ctx));
}

/** Encoded (small) picture size for a requested size: long side LONG_SIDE, both even, aspect kept. */
export function encodedSize(size: string): {
  width: number;
  height: number;
  displayWidth: number;
  displayHeight: number;
} {
  const [displayWidth, displayHeight] = size.split('x').map(Number);
  const scale = LONG_SIDE / Math.max(displayWidth, displayHeight);
  const even = (value: number) => Math.max(2, Math.round((value * scale) / 2) * 2);
  return { width: even(displayWidth), height: even(displayHeight), displayWidth, displayHeight };
}

/** The MP4 for a job: deterministic for its prompt (and remix chain), size and duration. */
export function renderVideo(job: Pick<VideoJob, 'seed' | 'size' | 'seconds'>): Buffer {
  const { width, height, displayWidth, displayHeight } = encodedSize(job.size);
  const frameCount = Number(job.seconds) * FPS;
  const seed = seedFromHex(job.seed);
  function* frames() {
    for (let i = 0; i < frameCount; i++) yield renderPattern(seed, width, height, i / frameCount);
  }
  return muxMp4(encodeH264(frames(), width, height, FPS), { width, height, displayWidth, displayHeight, fps: FPS });
}

export function videoContent(id: string | undefined, ctx: VideoCallContext): Response {
  const job = completedJob(id, ctx);
  return binaryResponse(renderVideo(job), 'video/mp4', ctx.pacing, 64 * 1024);
}
