/**
 * Real streaming for the demo: a pull-based ReadableStream that produces one part (an SSE event, or a slice of
 * a binary file) per read, waiting `delayMs` between parts, so a client sees tokens arrive over time exactly as
 * with a real model. Parts come from a lazy iterable, so nothing is produced after the consumer stops.
 *
 * Stopping: when `signal` aborts (the gateway's client went away) the pending wait is cleared and the stream
 * errors with the abort reason, as a fetch body does; when the consumer cancels the stream, the same cleanup
 * runs. Either way no timer is left behind.
 */
export interface Pacing {
  delayMs: number;
  signal?: AbortSignal;
}

const encoder = new TextEncoder();

export function pacedStream(parts: Iterable<string | Uint8Array>, pacing: Pacing): ReadableStream<Uint8Array> {
  const { delayMs, signal } = pacing;
  const iterator = parts[Symbol.iterator]();
  let started = false;
  let finished = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let wake: (() => void) | undefined;
  let controllerRef: ReadableStreamDefaultController<Uint8Array> | undefined;

  const finish = () => {
    if (finished) return;
    finished = true;
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    signal?.removeEventListener('abort', onAbort);
    iterator.return?.();
    wake?.();
  };
  const onAbort = () => {
    if (finished) return;
    finish();
    controllerRef?.error(signal?.reason ?? new DOMException('The operation was aborted.', 'AbortError'));
  };

  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        controllerRef = controller;
        if (signal?.aborted) onAbort();
        else signal?.addEventListener('abort', onAbort, { once: true });
      },
      async pull(controller) {
        if (finished) return;
        // The first part goes out at once (like a model's first byte); later parts are paced.
        if (started && delayMs > 0) {
          await new Promise<void>((resolve) => {
            wake = resolve;
            timer = setTimeout(resolve, delayMs);
          });
          wake = undefined;
          timer = undefined;
          if (finished) return;
        }
        started = true;
        const next = iterator.next();
        if (next.done) {
          finish();
          controller.close();
          return;
        }
        controller.enqueue(typeof next.value === 'string' ? encoder.encode(next.value) : next.value);
      },
      cancel() {
        finish();
      },
    },
    // highWaterMark 0: produce a part only when the consumer asks for one (no read-ahead), so an abandoned
    // stream costs nothing and chunk timing is the pacing, not a buffer.
    { highWaterMark: 0 },
  );
}

/** One SSE event. `event:` is only written for APIs that use typed events (Responses). */
export function sseEvent(data: unknown, event?: string): string {
  const payload = typeof data === 'string' ? data : JSON.stringify(data);
  return (event ? `event: ${event}\n` : '') + `data: ${payload}\n\n`;
}

export const SSE_DONE = 'data: [DONE]\n\n';

export function sseResponse(events: Iterable<string>, pacing: Pacing): Response {
  return new Response(pacedStream(events, pacing), {
    status: 200,
    headers: { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' },
  });
}

/** A binary body streamed in slices of `sliceBytes`, paced like SSE so audio can start playing early. */
export function binaryResponse(
  bytes: Uint8Array,
  contentType: string,
  pacing: Pacing,
  sliceBytes = 32 * 1024,
  headers: Record<string, string> = {},
): Response {
  function* slices() {
    for (let offset = 0; offset < bytes.length; offset += sliceBytes) {
      yield bytes.subarray(offset, Math.min(bytes.length, offset + sliceBytes));
    }
  }
  return new Response(pacedStream(slices(), pacing), {
    status: 200,
    headers: { 'content-type': contentType, 'content-length': String(bytes.length), ...headers },
  });
}
