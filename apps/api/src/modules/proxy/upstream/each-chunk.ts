import type { Readable } from 'node:stream';

/** A body as the gateway gets it: node's stream from a provider or a caller, or any async iterable (the demo). */
export type Body = AsyncIterable<Uint8Array> & { destroy?: (error?: Error) => void };

/** What a chunk's handler says: go on, go on once this promise settles (backpressure), or stop reading. */
export type ChunkVerdict = void | 'stop' | Promise<void>;

function isNodeReadable(body: Body): body is Body & Readable {
  return typeof (body as Readable).on === 'function' && typeof (body as Readable).pause === 'function';
}

/**
 * Hands each chunk of `body` to `onChunk` as it arrives; resolves `'ended'` when the body ended, `'stopped'` when
 * the handler said stop (the caller then decides what becomes of the rest: destroy it, or let it drain so the
 * connection goes back to the pool). A node stream is read with plain listeners, paused while a promise the
 * handler returned is pending: a for-await loop's async iterator costs several microseconds per call and per
 * chunk on the gateway's hot path (docs/benchmarks.md). The body's own failures reject through `bodyError`
 * (a stream closed before its end is one); the handler's errors reject as they are, and destroy the body.
 */
export function eachChunk(
  body: Body,
  onChunk: (chunk: Buffer) => ChunkVerdict,
  bodyError: (error: unknown) => Error = (e) => e as Error,
): Promise<'ended' | 'stopped'> {
  if (!isNodeReadable(body)) return iterate(body, onChunk, bodyError);
  return new Promise((resolve, reject) => {
    let settled = false;
    let pending: Promise<void> | null = null;
    const settle = (error: Error | null, outcome: 'ended' | 'stopped' = 'ended') => {
      if (settled) return;
      settled = true;
      body.off('data', onData);
      body.off('end', onEnd);
      body.off('error', onError);
      body.off('close', onClose);
      if (error) reject(error);
      else resolve(outcome);
    };
    const handlerFailed = (error: unknown) => {
      settle(error as Error);
      body.destroy();
    };
    const onData = (chunk: Buffer) => {
      let verdict: ChunkVerdict;
      try {
        verdict = onChunk(chunk);
      } catch (error) {
        return handlerFailed(error);
      }
      if (verdict === 'stop') return settle(null, 'stopped');
      if (verdict) {
        body.pause();
        pending = verdict.then(() => {
          pending = null;
          if (!settled) body.resume();
        }, handlerFailed);
      }
    };
    // A paused stream still ends once its last chunk was handed over: the body has ended only when the handler's
    // promise for that chunk has settled too (a stream's usage chunk waiting for its charge, relay.ts).
    let ended = false;
    const onEnd = () => {
      ended = true;
      if (pending) void pending.then(() => settle(null));
      else settle(null);
    };
    const onError = (error: Error) => settle(bodyError(error));
    // A body that ended closes next (autoDestroy), while the last chunk's promise may still be pending.
    const onClose = () =>
      ended || settle(bodyError(Object.assign(new Error('Premature close'), { code: 'ERR_STREAM_PREMATURE_CLOSE' })));
    if (body.readableEnded) return resolve('ended');
    if (body.destroyed) return body.errored ? onError(body.errored) : onClose();
    body.on('data', onData);
    body.on('end', onEnd);
    body.on('error', onError);
    body.on('close', onClose);
  });
}

async function iterate(
  body: Body,
  onChunk: (chunk: Buffer) => ChunkVerdict,
  bodyError: (error: unknown) => Error,
): Promise<'ended' | 'stopped'> {
  const iterator = body[Symbol.asyncIterator]();
  try {
    for (;;) {
      let next: IteratorResult<Uint8Array>;
      try {
        next = await iterator.next();
      } catch (error) {
        throw bodyError(error);
      }
      if (next.done) return 'ended';
      const chunk = next.value;
      const verdict = onChunk(
        Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength),
      );
      if (verdict === 'stop') {
        await iterator.return?.();
        return 'stopped';
      }
      if (verdict) await verdict;
    }
  } catch (error) {
    await Promise.resolve(iterator.return?.()).catch(() => undefined);
    throw error;
  }
}

/** Collects a body's bytes, up to `limit` (`over` says whether there were more; reading then stopped). */
export async function collect(
  body: Body,
  limit: number,
  bodyError?: (error: unknown) => Error,
): Promise<{ bytes: Buffer; over: boolean }> {
  const chunks: Buffer[] = [];
  let size = 0;
  let over = false;
  await eachChunk(
    body,
    (chunk) => {
      if (size + chunk.length > limit) {
        over = true;
        return 'stop';
      }
      size += chunk.length;
      chunks.push(chunk);
    },
    bodyError,
  );
  return { bytes: chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size), over };
}
