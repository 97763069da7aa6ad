import { Injectable } from '@nestjs/common';
import { CallBilling } from '../billing/call-billing';
import { toUnits } from '../billing/pricing';
import type { AnswerSink } from '../call/answer-sink';
import type { Call } from '../call/call';
import { GatewayErrorCode, GatewayException } from '../errors/gateway.exception';
import { openAiUpstreamError } from '../errors/upstream-errors';
import { meterFrame, meterJson, meterRequest } from '../metering/metering';
import type { Frame, Json } from '../wire/frame';
import { SseParser } from '../wire/sse';
import type { CancelSignal } from '../upstream/cancel';
import { type ChunkVerdict, eachChunk } from '../upstream/each-chunk';
import { PASSED_RESPONSE_HEADERS } from '../upstream/forwarded-headers';
import { ClientGoneError, readText, upstreamFailure, type UpstreamResponse } from '../upstream/upstream-client';
import { VideoJobsRepository } from '../videos/video-jobs.repository';

export const COST_HEADER = 'x-switchyard-cost';

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
 * Carries a call's answer from the provider to the caller (SSE frame by frame, JSON, or bytes): the provider's side
 * meters it (metering/ for OpenAI's format, the gateway's own; a provider's own format, its adapter), the call's
 * face writes it in its wire format (call.writer), and JSON answers get `x-switchyard-cost` (what the call is
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
      throw openAiUpstreamError(
        upstream.status,
        await readText(upstream.body, undefined, call.signal),
        call.model,
        upstream.headers,
      );
    call.accept();
    if (contentType.includes('text/event-stream')) {
      const responses = call.route.action === 'responses';
      return this.stream(
        call,
        sink,
        sseSource(upstream.body, call.signal, (frames) => {
          for (const frame of frames) meterFrame(call, frame, responses);
          return frames;
        }),
      );
    }
    if (contentType.includes('json')) {
      const text = await readText(upstream.body, MAX_JSON_ANSWER, call.signal);
      let body: Json;
      try {
        body = JSON.parse(text) as Json;
      } catch {
        throw new GatewayException(GatewayErrorCode.UPSTREAM_ERROR, 'The model provider sent an unreadable answer');
      }
      meterJson(call, body);
      if (
        (call.route.action === 'video_generation' || call.route.action === 'video_remix') &&
        typeof body.id === 'string'
      )
        await this.videos.insert(body.id, call.caller.userId, call.model.id);
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
      call.firstByte();
      if (!sink.write(chunk)) await waitForDrain(sink, call.signal);
    }
    sink.end();
  }

  /**
   * A JSON answer, metered already: charged, then written by the call's face. `original`: the provider's own text of
   * `body`, which a face that writes the provider's format passes on with the model's name and the cost spliced in
   * (relay/answer-splice.ts).
   */
  async json(call: Call, status: number, body: Json, sink: AnswerSink, original?: string): Promise<void> {
    const cost = this.billing.costNote(call, await this.billing.charge(call));
    const text = call.writer.json(call, body, original, cost);
    call.firstByte();
    sink.writeHead(status, {
      [COST_HEADER]: String(cost.units),
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(text),
    });
    sink.end(text);
  }

  /**
   * Relays a stream's frames as they arrive (never buffered), each written by the call's face. The frames come
   * metered from the provider's side (`source`); the one that carries the final usage waits for the call's charge
   * when the face asks (to write the cost in it, or to settle a nearly spent account first), and the last one
   * ([DONE], a Responses stream's final event) ends the answer.
   */
  async stream(call: Call, sink: AnswerSink, source: FrameSource): Promise<void> {
    sink.writeHead(200, SSE_HEADERS);
    // The headers leave with the first frame (one write, not two), or on their own if the provider has sent none
    // within HEADERS_ALONE_MS (a model slow to start): the caller always sees the answer begin at once.
    let headersAlone: NodeJS.Timeout | undefined = setTimeout(() => {
      headersAlone = undefined;
      if (!sink.writableEnded) {
        call.firstByte();
        sink.flushHeaders();
      }
    }, HEADERS_ALONE_MS);
    let ended = false;
    const { writer } = call;
    // The frames of one upstream chunk go out in one write: as they came, never held for the next chunk. `start`
    // and `charged`: where a chunk resumes after its usage frame waited for a charge above the hold to be written.
    const relay = (frames: Frame[], start: number, out: string, charged?: string): ChunkVerdict => {
      for (let i = start; i < frames.length; i += 1) {
        const frame = frames[i];
        if (i === start && charged !== undefined) out += charged;
        else if (frame.finalUsage && writer.needsCharge(call, frame)) {
          const cost = this.billing.charge(call);
          if (typeof cost !== 'number')
            return cost.then(
              (micros) => void relay(frames, i, out, writer.frame(call, frame, this.billing.costNote(call, micros))),
            );
          out += writer.frame(call, frame, this.billing.costNote(call, cost));
        } else out += writer.frame(call, frame, null);
        // The last frame ([DONE], a Responses stream's final event) ends the answer now rather than when the upstream
        // closes its end, so a client that hangs up right after it (the SDKs and Codex do) is not taken for one that
        // left early. Whatever the upstream still sends is read and dropped, so its connection can go back to the pool.
        if (frame.last) {
          ended = true;
          call.firstByte();
          sink.end(out + writer.end(call));
          return 'stop';
        }
      }
      if (!out) return;
      call.firstByte();
      if (headersAlone) headersAlone = void clearTimeout(headersAlone);
      if (!sink.write(out)) return waitForDrain(sink, call.signal);
    };
    await source((frames) => (ended ? 'stop' : relay(frames, 0, ''))).finally(() => clearTimeout(headersAlone));
    if (!ended) sink.end(writer.end(call));
  }
}

/**
 * The frames of an upstream SSE body, chunk by chunk: each chunk's events through `toFrames`, and at the body's end
 * what the parser still held (`end` true). A read failure becomes the caller's error (upstreamFailure).
 */
export function sseSource(
  body: UpstreamResponse['body'],
  signal: CancelSignal,
  toFrames: (frames: Frame[], end: boolean) => Frame[],
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
