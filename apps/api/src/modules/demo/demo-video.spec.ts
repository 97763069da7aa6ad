import { DemoProvider, type DemoCall } from './demo-provider';
import { encodedSize, renderVideo, VideoStore, type VideoJob } from './demo-video';
import { sha256Hex } from './hash';

const START = Date.UTC(2025, 0, 1);

function setup(videoSeconds = 10) {
  let now = START;
  const provider = new DemoProvider({ chunkDelayMs: 0, videoSeconds, now: () => now });
  const call = (c: Partial<DemoCall> & { method: DemoCall['method'] }) =>
    provider.handle({ publicModel: 'demo-video', userKey: 'alice', ...c });
  return { call, advance: (ms: number) => (now += ms) };
}

/** Top-level (or nested) ISO BMFF boxes of a buffer. */
function boxes(buf: Buffer, start = 0, end = buf.length): Array<{ type: string; body: Buffer }> {
  const out: Array<{ type: string; body: Buffer }> = [];
  let offset = start;
  while (offset < end) {
    const size = buf.readUInt32BE(offset);
    expect(size).toBeGreaterThanOrEqual(8);
    out.push({ type: buf.toString('latin1', offset + 4, offset + 8), body: buf.subarray(offset + 8, offset + size) });
    offset += size;
  }
  expect(offset).toBe(end);
  return out;
}

const child = (parent: Buffer, type: string) => boxes(parent).find((b) => b.type === type)!.body;

/** Exp-Golomb reader, to read the SPS back. */
class BitReader {
  private bit = 0;
  constructor(private readonly bytes: Buffer) {}
  u(n: number): number {
    let v = 0;
    for (let i = 0; i < n; i++) {
      v = v * 2 + ((this.bytes[this.bit >> 3] >> (7 - (this.bit & 7))) & 1);
      this.bit++;
    }
    return v;
  }
  ue(): number {
    let zeros = 0;
    while (this.u(1) === 0) zeros++;
    return 2 ** zeros - 1 + this.u(zeros);
  }
}

describe('demo videos', () => {
  it('runs the lifecycle queued → in_progress → completed with a fake clock', async () => {
    const { call, advance } = setup(10);
    const created = await call({
      method: 'video_generation',
      json: { model: 'x', prompt: 'a paper boat', seconds: '8', size: '1280x720' },
    });
    expect(created.status).toBe(200);
    const job = (await created.json()) as any;
    expect(job).toEqual({
      id: expect.stringMatching(/^video_[0-9a-f]{48}$/),
      object: 'video',
      model: 'demo-video',
      status: 'queued',
      progress: 0,
      created_at: START / 1000,
      completed_at: null,
      expires_at: null,
      prompt: 'a paper boat',
      size: '1280x720',
      seconds: '8',
      remixed_from_video_id: null,
      error: null,
    });
    const retrieve = async () => (await (await call({ method: 'video_retrieve', videoId: job.id })).json()) as any;

    advance(5_000);
    expect(await retrieve()).toMatchObject({ status: 'in_progress', progress: 50, completed_at: null });
    const early = await call({ method: 'video_content', videoId: job.id });
    expect(early.status).toBe(409);
    expect(((await early.json()) as any).error).toMatchObject({
      type: 'invalid_request_error',
      code: 'video_not_ready',
    });

    advance(5_000);
    expect(await retrieve()).toMatchObject({ status: 'completed', progress: 100, completed_at: START / 1000 + 10 });
    const content = await call({ method: 'video_content', videoId: job.id });
    expect(content.status).toBe(200);
    expect(content.headers.get('content-type')).toBe('video/mp4');
    const mp4 = Buffer.from(await content.arrayBuffer());
    expect(mp4.toString('latin1', 4, 8)).toBe('ftyp');
    // The content is the deterministic rendering of the prompt at that size and duration.
    expect(mp4.equals(renderVideo({ seed: sha256Hex('video', 'a paper boat'), size: '1280x720', seconds: '8' }))).toBe(
      true,
    );
  });

  it('hides other owners’ jobs and unknown ids behind 404 video_not_found', async () => {
    const { call, advance } = setup(1);
    const job = (await (await call({ method: 'video_generation', json: { prompt: 'x' } })).json()) as any;
    advance(2_000);
    for (const c of [
      { method: 'video_retrieve' as const, videoId: job.id, userKey: 'bob' },
      { method: 'video_content' as const, videoId: job.id, userKey: 'bob' },
      { method: 'video_remix' as const, videoId: job.id, userKey: 'bob', json: { prompt: 'y' } },
      { method: 'video_retrieve' as const, videoId: 'video_nope' },
      { method: 'video_retrieve' as const },
    ]) {
      const response = await call(c);
      expect(response.status).toBe(404);
      expect(((await response.json()) as any).error).toMatchObject({
        type: 'invalid_request_error',
        code: 'video_not_found',
      });
    }
    expect((await call({ method: 'video_retrieve', videoId: job.id })).status).toBe(200);
  });

  it('remixes a completed video into a new job', async () => {
    const { call, advance } = setup(1);
    const source = (await (
      await call({ method: 'video_generation', json: { prompt: 'a cat', seconds: '4' } })
    ).json()) as any;
    expect((await call({ method: 'video_remix', videoId: source.id, json: { prompt: 'a dog' } })).status).toBe(409);
    advance(1_000);
    const remix = (await (
      await call({ method: 'video_remix', videoId: source.id, json: { prompt: 'a dog' } })
    ).json()) as any;
    expect(remix).toMatchObject({
      status: 'queued',
      prompt: 'a dog',
      seconds: '4',
      size: '720x1280',
      remixed_from_video_id: source.id,
    });
    expect(remix.id).not.toBe(source.id);
  });

  it('accepts multipart fields (the SDK sends videos.create as multipart) and defaults', async () => {
    const { call } = setup();
    const form = new FormData();
    form.append('prompt', 'waves');
    form.append('seconds', '12');
    const job = (await (await call({ method: 'video_generation', form })).json()) as any;
    expect(job).toMatchObject({ prompt: 'waves', seconds: '12', size: '720x1280' });
  });

  it.each([
    ['prompt', 'missing', {}],
    ['prompt', 'empty', { prompt: '' }],
    ['seconds', 'not 4, 8 or 12', { prompt: 'x', seconds: '5' }],
    ['size', 'not a Sora size', { prompt: 'x', size: '640x480' }],
  ])('rejects %s: %s', async (param, _why, json) => {
    const { call } = setup();
    const response = await call({ method: 'video_generation', json });
    expect(response.status).toBe(400);
    expect(((await response.json()) as any).error).toMatchObject({ type: 'invalid_request_error', param });
  });

  it('evicts the oldest jobs beyond the bound', () => {
    const store = new VideoStore(2);
    const job = (id: string): VideoJob => ({
      id,
      owner: '',
      model: 'm',
      prompt: 'p',
      seconds: '4',
      size: '720x1280',
      createdMs: 0,
      remixedFrom: null,
      seed: 'ab',
    });
    store.add(job('a'));
    store.add(job('b'));
    store.add(job('c'));
    expect(store.size).toBe(2);
    expect(store.find('a', '')).toBeUndefined();
    expect(store.find('c', '')).toBeDefined();
  });
});

describe('demo MP4 file', () => {
  const mp4 = renderVideo({ seed: '0123abcd', size: '720x1280', seconds: '4' });

  it('is ftyp + moov + mdat with a consistent sample table', () => {
    const top = boxes(mp4);
    expect(top.map((b) => b.type)).toEqual(['ftyp', 'moov', 'mdat']);
    expect(top[0].body.toString('latin1', 0, 4)).toBe('isom');
    const moov = top[1].body;
    const mvhd = child(moov, 'mvhd');
    expect(mvhd.readUInt32BE(12)).toBe(1000); // timescale
    expect(mvhd.readUInt32BE(16)).toBe(4000); // 4 s
    const trak = child(moov, 'trak');
    const tkhd = child(trak, 'tkhd');
    expect([tkhd.readUInt32BE(76) / 65536, tkhd.readUInt32BE(80) / 65536]).toEqual([720, 1280]);
    const stbl = child(child(child(trak, 'mdia'), 'minf'), 'stbl');
    const stsd = child(stbl, 'stsd');
    expect(stsd.toString('latin1', 12, 16)).toBe('avc1');
    const avc1 = stsd.subarray(16);
    expect([avc1.readUInt16BE(24), avc1.readUInt16BE(26)]).toEqual([54, 96]);
    const avcC = boxes(avc1, 78).find((b) => b.type === 'avcC')!.body;
    expect([...avcC.subarray(0, 4)]).toEqual([1, 66, 0xc0, 30]);
    const stsz = child(stbl, 'stsz');
    const count = stsz.readUInt32BE(8);
    expect(count).toBe(16); // 4 fps × 4 s
    const sizes = Array.from({ length: count }, (_, i) => stsz.readUInt32BE(12 + 4 * i));
    const stco = child(stbl, 'stco');
    const offset = stco.readUInt32BE(8);
    const mdatStart = mp4.length - top[2].body.length;
    expect(offset).toBe(mdatStart);
    expect(sizes.reduce((a, b) => a + b)).toBe(top[2].body.length);
    // Each sample is one length-prefixed IDR NAL unit (type 5) without start-code emulation.
    let at = offset;
    for (const size of sizes) {
      const nalLength = mp4.readUInt32BE(at);
      expect(nalLength).toBe(size - 4);
      const nal = mp4.subarray(at + 4, at + size);
      expect(nal[0] & 0x1f).toBe(5);
      let emulated = false;
      for (let i = 2; i < nal.length; i++) if (nal[i - 2] === 0 && nal[i - 1] === 0 && nal[i] < 3) emulated = true;
      expect(emulated).toBe(false);
      at += size;
    }
  });

  it('carries an SPS that decodes to the encoded size', () => {
    const moov = boxes(mp4)[1].body;
    const stsd = child(child(child(child(child(moov, 'trak'), 'mdia'), 'minf'), 'stbl'), 'stsd');
    const avcC = boxes(stsd.subarray(16), 78).find((b) => b.type === 'avcC')!.body;
    const spsLength = avcC.readUInt16BE(6);
    const sps = avcC.subarray(8, 8 + spsLength);
    expect(sps[0] & 0x1f).toBe(7);
    const r = new BitReader(sps.subarray(1));
    expect([r.u(8), r.u(8), r.u(8)]).toEqual([66, 0xc0, 30]);
    r.ue(); // sps id
    r.ue(); // log2_max_frame_num_minus4
    expect(r.ue()).toBe(2); // poc type
    r.ue(); // max refs
    r.u(1);
    const mbWidth = r.ue() + 1;
    const mbHeight = r.ue() + 1;
    expect(r.u(1)).toBe(1); // frame_mbs_only
    r.u(1);
    expect(r.u(1)).toBe(1); // cropping
    const [left, right, top, bottom] = [r.ue(), r.ue(), r.ue(), r.ue()];
    expect(mbWidth * 16 - 2 * (left + right)).toBe(54);
    expect(mbHeight * 16 - 2 * (top + bottom)).toBe(96);
  });

  it('keeps the aspect ratio in a small encoded size', () => {
    expect(encodedSize('720x1280')).toMatchObject({ width: 54, height: 96 });
    expect(encodedSize('1792x1024')).toMatchObject({ width: 96, height: 54 });
    expect(encodedSize('1024x1792')).toMatchObject({ width: 54, height: 96 });
  });

  it('is deterministic', () => {
    expect(renderVideo({ seed: '0123abcd', size: '720x1280', seconds: '4' }).equals(mp4)).toBe(true);
  });
});
