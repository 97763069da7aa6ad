import { PassThrough, Readable } from 'node:stream';
import { collect, eachChunk } from './each-chunk';

const text = (chunks: Buffer[]) => chunks.map((c) => c.toString()).join('|');

describe('eachChunk', () => {
  it('hands over a node stream chunk by chunk and says when it ended', async () => {
    const seen: Buffer[] = [];
    const body = Readable.from([Buffer.from('a'), Buffer.from('b'), Buffer.from('c')], { objectMode: false });
    expect(await eachChunk(body, (chunk) => void seen.push(chunk))).toBe('ended');
    expect(text(seen)).toBe('a|b|c');
  });

  it('reads no further while the promise a handler returned is pending', async () => {
    const body = new PassThrough();
    const seen: string[] = [];
    let release!: () => void;
    const done = eachChunk(body, (chunk) => {
      seen.push(chunk.toString());
      if (seen.length === 1) return new Promise<void>((resolve) => (release = resolve));
    });
    body.write('one');
    body.write('two');
    body.end();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(seen).toEqual(['one']);
    release();
    expect(await done).toBe('ended');
    expect(seen).toEqual(['one', 'two']);
  });

  it('ends only once the promise a handler returned for the last chunk has settled', async () => {
    const body = new Readable({ read: () => undefined });
    const order: string[] = [];
    const done = eachChunk(body, () => {
      order.push('chunk');
      return new Promise<void>((resolve) => setTimeout(() => resolve(void order.push('handled')), 30));
    }).then((outcome) => void order.push(outcome));
    body.push(Buffer.from('the last chunk'));
    body.push(null);
    await done;
    expect(order).toEqual(['chunk', 'handled', 'ended']);
  });

  it('stops when the handler says so, leaving the rest unread by it', async () => {
    const body = new PassThrough();
    const seen: string[] = [];
    const done = eachChunk(body, (chunk) => {
      seen.push(chunk.toString());
      return 'stop';
    });
    body.write('first');
    expect(await done).toBe('stopped');
    body.end('second');
    await new Promise((resolve) => setImmediate(resolve));
    expect(seen).toEqual(['first']);
  });

  it("rejects with the body's failure, as the caller maps it", async () => {
    const body = new PassThrough();
    const done = eachChunk(
      body,
      () => undefined,
      (error) => new Error(`mapped: ${(error as Error).message}`),
    );
    body.destroy(new Error('socket hang up'));
    await expect(done).rejects.toThrow('mapped: socket hang up');
  });

  it('takes a stream closed before its end for a failure', async () => {
    const body = new PassThrough();
    const done = eachChunk(
      body,
      () => undefined,
      (error) => new Error(`mapped: ${(error as { code?: string }).code}`),
    );
    body.write('partial');
    body.destroy();
    await expect(done).rejects.toThrow('mapped: ERR_STREAM_PREMATURE_CLOSE');
  });

  it("rejects with the handler's own error unmapped, and destroys the body", async () => {
    const body = new PassThrough();
    const done = eachChunk(
      body,
      () => {
        throw new Error('bad frame');
      },
      () => new Error('should not be mapped'),
    );
    body.write('x');
    await expect(done).rejects.toThrow('bad frame');
    expect(body.destroyed).toBe(true);
  });

  it('reads any other async iterable the same way, and ends it when told to stop', async () => {
    let finished = false;
    async function* chunks() {
      try {
        yield new TextEncoder().encode('u');
        yield new TextEncoder().encode('v');
        yield new TextEncoder().encode('w');
      } finally {
        finished = true;
      }
    }
    const seen: string[] = [];
    expect(
      await eachChunk(chunks(), (chunk) => (seen.push(chunk.toString()), seen.length === 2 ? 'stop' : undefined)),
    ).toBe('stopped');
    expect(seen).toEqual(['u', 'v']);
    expect(finished).toBe(true);
  });
});

describe('collect', () => {
  it('collects up to the limit and says whether there was more', async () => {
    expect(await collect(Readable.from([Buffer.from('ab'), Buffer.from('cd')]), 10)).toEqual({
      bytes: Buffer.from('abcd'),
      over: false,
    });
    const over = await collect(Readable.from([Buffer.from('ab'), Buffer.from('cd'), Buffer.from('ef')]), 5);
    expect(over).toEqual({ bytes: Buffer.from('abcd'), over: true });
  });
});
