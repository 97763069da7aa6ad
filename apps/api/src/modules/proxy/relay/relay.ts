import { Injectable } from '@nestjs/common';
import { CallBilling } from '../billing/call-billing';
import { billedUsage, pricedUsage } from '../billing/priced-usage';
import { costDetails, toUnits } from '../billing/pricing';
import type { AnswerSink } from '../call/answer-sink';
import type { Call } from '../call/call';
import { GatewayErrorCode, GatewayException } from '../gateway.exception';
import { meterFrame, meterJson, meterRequest } from '../metering/metering';
import { openAiUpstreamError } from '../providers/upstream-errors';
import { SseParser } from '../providers/sse';
import type { CancelSignal } from '../upstream/cancel';
import { type ChunkVerdict, eachChunk } from '../upstream/each-chunk';
import { PASSED_RESPONSE_HEADERS } from '../upstream/forwarded-headers';
import { ClientGoneError, readText, upstreamFailure, type UpstreamResponse } from '../upstream/upstream-client';
import { VideoJobsRepository } from '../video-jobs.repository';
import { spliceAnswer } from './answer-splice';

export const COST_HEADER = 'x-switchyard-cost';

export interface Frame {
  event?: string;
  data: string;
}

/**
 * Where a stream's frames come from: it calls `sink` with each upstream chunk's frames as they arrive, and waits
 * when the sink asks (the caller reads slower than the provider writes) or stops when the sink says so ([DONE]).
 */
export type FrameSource = (sink: (frames: Frame[]) => ChunkVerdict) => Promise<void>;

const SSE_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache',
  connection: 'keep-alive',
  'x-accel-buffering': 'no',
};
/** How long a stream's headers wait for its first frame, to leave in the same write. */
const HEADERS_ALONE_MS = 50;
/** The largest JSON answer read from a provider. */
const MAX_JSON_ANSWER = 64 * 1024 * 1024;

/**
 * Writes a call's answer to the caller as it comes from the provider (SSE frame by frame, JSON, or bytes), metering
 * on the way: the usage chunk and JSON answers get `usage.cost`, JSON answers `x-switchyard-cost` (what the call is
 * charged: billing/call-billing.ts).
 */
@Injectable()
export class AnswerRelay {
  constructor(
    private readonly billing: CallBilling,
    private readonly videos: VideoJobsRepository,
  ) {}

  /** An answer in OpenAI's wire format (the openai and demo providers): an error, a stream, JSON, or bytes. */
  async openAiFormat(call: Call, upstream: UpstreamResponse, sink: AnswerSink): Promise<void> {
    const contentType = String(upstream.headers['content-type'] ?? '');
    if (upstream.status >= 400)
      throw openAiUpstreamError(upstream.status, await readText(upstream.body, undefined, call.signal), call.model);
    call.accepted = true;
    if (contentType.includes('text/event-stream'))
      return this.stream(
        call,
        sink,
        sseSource(upstream.body, call.signal, (events) => events),
      );
    if (contentType.includes('json')) {
      const text = await readText(upstream.body, MAX_JSON_ANSWER, call.signal);
      let body: Record<string, unknown>;
      try {
        body = JSON.parse(text) as Record<string, unknown>;
      } catch {
        throw new GatewayException(GatewayErrorCode.UPSTREAM_ERROR, 'The model provider sent an unreadable answer');
      }
      return this.json(call, upstream.status, body, sink, text);
    }
    return this.passThrough(call, upstream, sink);
  }

  /**
   * Binary or text (speech audio, a transcript as text): streamed through, priced from the request (speech) or
   * estimated from it.
   */
  private async passThrough(call: Call, upstream: UpstreamResponse, sink: AnswerSink): Promise<void> {
    meterRequest(call);
    const cost = await this.billing.charge(call);
    sink.statusCode = upstream.status;
    for (const name of PASSED_RESPONSE_HEADERS.relayed) {
      const value = upstream.headers[name];
      if (value !== undefined && name !== 'content-length') sink.setHeader(name, String(value));
    }
    sink.setHeader(COST_HEADER, String(toUnits(cost)));
    for await (const chunk of upstream.body) {
      call.firstByteAt ??= Date.now();
      if (!sink.write(chunk)) await waitForDrain(sink, call.signal);
    }
    sink.end();
  }

  /**
   * `original`: the upstream's own text of `body`, written into rather than re-serialised when it allows
   * (answer-splice.ts). `meterFrom`: the answer's usage in OpenAI's format, when `body` is in another (a native
   * Anthropic Message).
   */
  async json(
    call: Call,
    status: number,
    body: Record<string, unknown>,
    sink: AnswerSink,
    original?: string,
    meterFrom?: Record<string, unknown>,
  ): Promise<void> {
    meterJson(call, meterFrom ?? body);
    const cost = await this.billing.charge(call);
    if (
      (call.route.action === 'video_generation' || call.route.action === 'video_remix') &&
      typeof body.id === 'string'
    )
      await this.videos.insert(body.id, call.caller.userId, call.model.id);
    const details = costDetails(call.model.pricing, pricedUsage(call) ?? billedUsage(call));
    let text = original === undefined ? null : spliceAnswer(original, body, call.model.id, toUnits(cost), details);
    if (text === null) {
      if (typeof body.model === 'string') body.model = call.model.id;
      const usage = body.usage as Record<string, unknown> | undefined;
      if (usage && typeof usage === 'object') {
        usage.cost = toUnits(cost);
        usage.cost_details = details;
      }
      text = JSON.stringify(body);
    }
    call.firstByteAt ??= Date.now();
    sink.writeHead(status, {
      [COST_HEADER]: String(toUnits(cost)),
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(text),
    });
    sink.end(text);
  }

  /**
   * Relays SSE frames as they arrive (never buffered), metering on the way: usage from the final usage chunk
   * (chat, completions) or the final response event (responses), and what was relayed, for the bill when the
   * client leaves early. The usage chunk gets `usage.cost` and is passed on only if the caller asked for it.
   */
  async stream(
    call: Call,
    sink: AnswerSink,
    source: FrameSource,
    frameOf: (data: string) => string | null | Promise<string | null> = (data) =>
      this.frame(call, data, call.route.action === 'responses'),
  ): Promise<void> {
    sink.writeHead(200, SSE_HEADERS);
    // The headers leave with the first frame (one write, not two), or on their own if the provider has sent none
    // within HEADERS_ALONE_MS (a model slow to start): the caller always sees the answer begin at once.
    let headersAlone: NodeJS.Timeout | undefined = setTimeout(() => {
      headersAlone = undefined;
      if (!sink.writableEnded) {
        call.firstByteAt ??= Date.now();
        sink.flushHeaders();
      }
    }, HEADERS_ALONE_MS);
    let ended = false;
    // The frames of one upstream chunk go out in one write: as they came, never held for the next chunk. `start`
    // and `metered`: where a chunk resumes after its usage frame waited for a charge above the hold to be written.
    const relay = (frames: Frame[], start: number, out: string, metered?: string | null): ChunkVerdict => {
      for (let i = start; i < frames.length; i += 1) {
        const data = i === start && metered !== undefined ? metered : frameOf(frames[i].data);
        if (data instanceof Promise) return data.then((settled) => void relay(frames, i, out, settled));
        if (data === null) continue;
        out += `${frames[i].event ? `event: ${frames[i].event}\n` : ''}data: ${data}\n\n`;
        // [DONE] (or a Responses stream's final event) is the last frame: end the answer now rather than when the
        // upstream closes its end, so a client that hangs up right after it (the SDKs and Codex do) is not taken for
        // one that left early. Whatever the upstream still sends is read and dropped, so its connection can go back
        // to the pool.
        if (data === '[DONE]' || (call.route.action === 'responses' && isFinalResponseEvent(frames[i], data))) {
          ended = true;
          call.firstByteAt ??= Date.now();
          sink.end(out);
          return 'stop';
        }
      }
      if (!out) return;
      call.firstByteAt ??= Date.now();
      if (headersAlone) headersAlone = void clearTimeout(headersAlone);
      if (!sink.write(out)) return waitForDrain(sink, call.signal);
    };
    await source((frames) => (ended ? 'stop' : relay(frames, 0, ''))).finally(() => clearTimeout(headersAlone));
    if (!ended) sink.end();
  }

  /**
   * What to relay of one frame (null: nothing), metered (metering.ts). The usage chunk gets `usage.cost` (once the
   * charge is known: a charge above the hold is written first) and is passed on only if the caller asked for it.
   */
  private frame(call: Call, data: string, responses: boolean): string | null | Promise<string | null> {
    if (data === '[DONE]' || !data.length) return data;
    const metered = meterFrame(call, data, responses);
    if (!metered) return data;
    if (
      !responses &&
      !call.callerWantsUsage &&
      !(metered.chunk.choices as ArrayLike<unknown> | null | undefined)?.length
    )
      return null;
    const withCost = (cost: number) => {
      metered.usage.cost = toUnits(cost);
      metered.usage.cost_details = costDetails(call.model.pricing, pricedUsage(call) ?? billedUsage(call));
      return JSON.stringify(metered.chunk);
    };
    const cost = this.billing.charge(call);
    return typeof cost === 'number' ? withCost(cost) : cost.then(withCost);
  }
}

const FINAL_RESPONSE_EVENT = /^\{\s*"type"\s*:\s*"response\.(completed|incomplete|failed)"/;

/** A Responses stream's last event (OpenAI sends nothing after it: no [DONE]). */
function isFinalResponseEvent(frame: Frame, data: string): boolean {
  return frame.event
    ? frame.event === 'response.completed' || frame.event === 'response.incomplete' || frame.event === 'response.failed'
    : FINAL_RESPONSE_EVENT.test(data);
}

/**
 * The frames of an upstream SSE body, chunk by chunk: each chunk's events through `toFrames`, and at the body's end
 * what the parser still held (`end` true). A read failure becomes the caller's error (upstreamFailure).
 */
export function sseSource(
  body: UpstreamResponse['body'],
  signal: CancelSignal,
  toFrames: (events: Frame[], end: boolean) => Frame[],
): FrameSource {
  const parser = new SseParser();
  return async (sink) => {
    const read = await eachChunk(
      body,
      (chunk) => sink(toFrames(parser.push(chunk), false)),
      (error) => upstreamFailure(error, signal),
    );
    if (read === 'ended') await sink(toFrames(parser.flush(), true));
  };
}

export function waitForDrain(sink: AnswerSink, signal: CancelSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(new ClientGoneError('client closed the request'));
    const done = () => {
      sink.off('drain', done);
      sink.off('close', done);
      if (signal.aborted) reject(new ClientGoneError('client closed the request'));
      else resolve();
    };
    sink.once('drain', done);
    sink.once('close', done);
  });
}
