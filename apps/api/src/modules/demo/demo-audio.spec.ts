import { DemoProvider } from './demo-provider';
import { countTokens } from './tokenizer';
import { encodeWav, parseWav, SAMPLE_RATE } from './wav';

const provider = new DemoProvider({ chunkDelayMs: 0 });
const speak = (json: unknown) => provider.handle({ method: 'audio_speech', publicModel: 'demo-tts', json });
const transcribe = (form: FormData) =>
  provider.handle({ method: 'audio_transcription', publicModel: 'demo-stt', form });

async function bytesOf(response: Response): Promise<Buffer> {
  return Buffer.from(await response.arrayBuffer());
}

function upload(bytes: Uint8Array, name: string, fields: Record<string, string> = {}): FormData {
  const form = new FormData();
  form.append('file', new Blob([bytes]), name);
  for (const [key, value] of Object.entries(fields)) form.append(key, value);
  return form;
}

describe('demo speech', () => {
  it('answers a real 24 kHz 16-bit mono WAV', async () => {
    const response = await speak({
      model: 'tts',
      input: 'Hello from the demo.',
      voice: 'alloy',
      response_format: 'wav',
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('audio/wav');
    const wav = await bytesOf(response);
    expect(wav.toString('latin1', 0, 4)).toBe('RIFF');
    expect(wav.readUInt32LE(4)).toBe(wav.length - 8);
    expect(wav.toString('latin1', 8, 16)).toBe('WAVEfmt ');
    expect(wav.readUInt16LE(20)).toBe(1); // PCM
    expect(wav.readUInt16LE(22)).toBe(1); // mono
    expect(wav.readUInt32LE(24)).toBe(24_000);
    expect(wav.readUInt16LE(34)).toBe(16);
    expect(wav.toString('latin1', 36, 40)).toBe('data');
    expect(wav.readUInt32LE(40)).toBe(wav.length - 44);
    expect(Number(response.headers.get('content-length'))).toBe(wav.length);
    const info = parseWav(wav)!;
    expect(info.durationSeconds).toBeGreaterThan(0.5);
    // Not silence: the tones have real amplitude.
    let peak = 0;
    for (let i = 44; i < wav.length; i += 2) peak = Math.max(peak, Math.abs(wav.readInt16LE(i)));
    expect(peak).toBeGreaterThan(5000);
  });

  it('returns WAV for mp3 and the other codecs (no fake mp3), raw PCM for pcm', async () => {
    const mp3 = await speak({ input: 'Hi', voice: 'alloy' });
    expect(mp3.headers.get('content-type')).toBe('audio/wav');
    const wav = await bytesOf(mp3);
    const pcm = await bytesOf(await speak({ input: 'Hi', voice: 'alloy', response_format: 'pcm' }));
    expect(pcm.equals(wav.subarray(44))).toBe(true);
  });

  it('is longer for longer text, faster with speed, and capped at 10 s', async () => {
    const duration = async (json: object) =>
      parseWav(await bytesOf(await speak({ voice: 'nova', response_format: 'wav', ...json })))!.durationSeconds;
    const short = await duration({ input: 'One two three.' });
    const long = await duration({ input: 'One two three four five six seven eight nine ten.' });
    expect(long).toBeGreaterThan(short * 2);
    expect(await duration({ input: 'One two three.', speed: 2 })).toBeCloseTo(short / 2, 1);
    expect(await duration({ input: 'word '.repeat(800) })).toBeLessThanOrEqual(10);
  });

  it('streams the body in several reads', async () => {
    const response = await speak({
      input: 'A fairly long sentence so that the audio spans more than one slice of bytes.',
      voice: 'echo',
    });
    const reader = response.body!.getReader();
    let reads = 0;
    for (;;) {
      const { done } = await reader.read();
      if (done) break;
      reads++;
    }
    expect(reads).toBeGreaterThan(2);
  });

  it('streams speech.audio.delta events for stream_format sse', async () => {
    const text = await (await speak({ input: 'Hi there', voice: 'alloy', stream_format: 'sse' })).text();
    const events = text
      .split('\n\n')
      .filter(Boolean)
      .map((e) => JSON.parse(e.slice(6)));
    expect(events[0].type).toBe('speech.audio.delta');
    const last = events[events.length - 1];
    expect(last.type).toBe('speech.audio.done');
    expect(last.usage.input_tokens).toBe(2);
    const audio = Buffer.concat(events.slice(0, -1).map((e) => Buffer.from(e.audio, 'base64')));
    expect(parseWav(audio)).toBeDefined();
  });

  it.each([
    ['input', 'missing', { voice: 'alloy' }],
    ['input', 'empty', { input: '', voice: 'alloy' }],
    ['input', 'over 4096 characters', { input: 'x'.repeat(4097), voice: 'alloy' }],
    ['voice', 'missing', { input: 'x' }],
    ['response_format', 'unknown', { input: 'x', voice: 'alloy', response_format: 'ogg' }],
    ['speed', 'above 4', { input: 'x', voice: 'alloy', speed: 5 }],
  ])('rejects %s: %s', async (param, _why, json) => {
    const response = await speak(json);
    expect(response.status).toBe(400);
    expect(((await response.json()) as any).error).toMatchObject({ type: 'invalid_request_error', param });
  });
});

describe('demo transcription', () => {
  const wav = encodeWav(new Int16Array(SAMPLE_RATE * 2.5)); // 2.5 s of silence

  it('answers json with token usage, naming the file and its real WAV duration', async () => {
    const response = await transcribe(upload(wav, 'speech.wav', { model: 'whisper-1', prompt: 'Names: Ada' }));
    expect(response.status).toBe(200);
    const body = (await response.json()) as any;
    expect(body.text).toMatch(
      /^Demo transcription of speech\.wav \(120044 bytes, [0-9a-f]{8}\)\. The audio lasts 2\.50 seconds\.$/,
    );
    expect(body.usage).toEqual({
      type: 'tokens',
      input_tokens: countTokens('Names: Ada') + 25,
      input_token_details: { text_tokens: countTokens('Names: Ada'), audio_tokens: 25 },
      output_tokens: countTokens(body.text),
      total_tokens: countTokens('Names: Ada') + 25 + countTokens(body.text),
    });
  });

  it('answers text, srt, vtt and verbose_json', async () => {
    const text = await (await transcribe(upload(wav, 'a.wav', { response_format: 'text' }))).text();
    expect(text).toMatch(/^Demo transcription of a\.wav .*\n$/);
    const srt = await (await transcribe(upload(wav, 'a.wav', { response_format: 'srt' }))).text();
    expect(srt).toMatch(/^1\n00:00:00,000 --> 00:00:02,500\nDemo transcription/);
    const vtt = await (await transcribe(upload(wav, 'a.wav', { response_format: 'vtt' }))).text();
    expect(vtt).toMatch(/^WEBVTT\n\n00:00:00\.000 --> 00:00:02\.500\nDemo transcription/);
    const form = upload(wav, 'a.wav', { response_format: 'verbose_json', language: 'fr' });
    form.append('timestamp_granularities[]', 'word');
    const verbose = (await (await transcribe(form)).json()) as any;
    expect(verbose).toMatchObject({
      task: 'transcribe',
      language: 'french',
      duration: 2.5,
      usage: { type: 'duration', seconds: 3 },
    });
    expect(verbose.segments[0]).toMatchObject({ id: 0, seek: 0, start: 0, end: 2.5, temperature: 0 });
    expect(verbose.words[0]).toEqual({ word: 'Demo', start: 0, end: expect.any(Number) });
  });

  it('estimates the duration of non-WAV uploads and is deterministic', async () => {
    const mp3ish = new Uint8Array(32_000).fill(7);
    const a = (await (await transcribe(upload(mp3ish, 'clip.mp3', { response_format: 'verbose_json' }))).json()) as any;
    expect(a.duration).toBe(2);
    const b = (await (await transcribe(upload(mp3ish, 'clip.mp3', { response_format: 'verbose_json' }))).json()) as any;
    expect(a).toEqual(b);
  });

  it('streams transcript.text events when stream is true', async () => {
    const text = await (await transcribe(upload(wav, 'a.wav', { stream: 'true' }))).text();
    const events = text
      .split('\n\n')
      .filter(Boolean)
      .map((e) => JSON.parse(e.slice(6)));
    expect(events[0].type).toBe('transcript.text.delta');
    const done = events[events.length - 1];
    expect(done.type).toBe('transcript.text.done');
    expect(
      events
        .slice(0, -1)
        .map((e) => e.delta)
        .join(''),
    ).toBe(done.text);
  });

  it('rejects a missing or empty file and a bad format', async () => {
    const none = await transcribe(new FormData());
    expect(none.status).toBe(400);
    expect(((await none.json()) as any).error).toMatchObject({ param: 'file', code: 'missing_required_parameter' });
    const empty = await transcribe(upload(new Uint8Array(0), 'a.wav'));
    expect(((await empty.json()) as any).error).toMatchObject({ param: 'file', code: 'empty_file' });
    const format = await transcribe(upload(wav, 'a.wav', { response_format: 'xml' }));
    expect(((await format.json()) as any).error.param).toBe('response_format');
    const missingForm = await provider.handle({ method: 'audio_transcription', publicModel: 'm' });
    expect(missingForm.status).toBe(400);
  });

  it('recovers the duration of the WAV the speech endpoint produced', async () => {
    const speech = Buffer.from(
      await (await speak({ input: 'Round trip.', voice: 'alloy', response_format: 'wav' })).arrayBuffer(),
    );
    const body = (await (
      await transcribe(upload(speech, 'speech.wav', { response_format: 'verbose_json' }))
    ).json()) as any;
    expect(body.duration).toBeCloseTo(parseWav(speech)!.durationSeconds, 2);
  });
});
