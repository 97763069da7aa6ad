import { invalid, DemoError, jsonResponse } from './errors';
import {
  bodyObject,
  formFields,
  invalidType,
  isObject,
  missing,
  optionalEnum,
  optionalNumber,
  optionalString,
  requiredString,
} from './fields';
import type { HandlerContext } from './context';
import { fnv1a, sha256Hex } from './hash';
import { binaryResponse, sseEvent, sseResponse } from './streaming';
import { chunkTokens, countTokens, splitTokens } from './tokenizer';
import { encodeWav, parseWav, pcmBytes, SAMPLE_RATE } from './wav';

/**
 * POST /v1/audio/speech and /v1/audio/transcriptions.
 *
 * Speech is real audio: one short tone per word (pitch from the word and the voice, length from the word and
 * `speed`), 16-bit mono PCM at 24 kHz, at most 10 seconds. `pcm` is returned raw (audio/pcm, as OpenAI does);
 * every other format is returned as WAV with `content-type: audio/wav`, because mp3/opus/aac/flac need
 * encoders this offline demo does not have, and a WAV labelled as mp3 would be a lie players trip over.
 *
 * Transcription answers a deterministic sentence naming the upload (file name, size, hash prefix) in every
 * response_format, with the real duration when the upload is a WAV.
 */

const SPEECH_FORMATS = ['mp3', 'opus', 'aac', 'flac', 'wav', 'pcm'] as const;
const MAX_SPEECH_SECONDS = 10;
const MAX_TRANSCRIPTION_BYTES = 25 * 1024 * 1024;
/** Audio is billed at a fixed 10 tokens per second (both directions). */
const AUDIO_TOKENS_PER_SECOND = 10;
/** A non-WAV upload's duration is estimated at 128 kbit/s, a typical mp3 bitrate. */
const ESTIMATED_BYTES_PER_SECOND = 16_000;
const PENTATONIC = [0, 2, 4, 7, 9, 12, 14];

// Per-pixel / per-sample loops use these module-level bindings rather than `Math.x`: under Jest's vm sandbox
// every global lookup is an interceptor call, which made the loops 10x slower in tests.
const { sin, min, round } = Math;

/** Tones for the words of `text`: deterministic, proportional to the text's length, capped. */
export function synthesize(text: string, voice: string, speed: number): Int16Array {
  const rate = SAMPLE_RATE;
  const maxSamples = MAX_SPEECH_SECONDS * rate;
  const words = text.match(/\S+/g) ?? [];
  const base = 160 + (fnv1a(voice) % 120); // each voice has its own pitch
  const chunks: Float32Array[] = [];
  let total = 0;
  const push = (seconds: number, frequency: number) => {
    const length = Math.min(Math.round((seconds * rate) / speed), maxSamples - total);
    if (length <= 0) return;
    const out = new Float32Array(length);
    if (frequency > 0) {
      // Locals only in this loop: it runs for every sample (an imported binding would be a getter call).
      const fade = Math.min(length / 2, rate * 0.008); // 8 ms fades: no clicks between tones
      const step = (2 * Math.PI * frequency) / rate;
      for (let i = 0; i < length; i++) {
        const envelope = min(1, i / fade, (length - 1 - i) / fade);
        out[i] = envelope * (0.75 * sin(step * i) + 0.25 * sin(2 * step * i));
      }
    }
    chunks.push(out);
    total += length;
  };
  for (const word of words) {
    if (total >= maxSamples) break;
    const semitones = PENTATONIC[fnv1a(word.toLowerCase()) % PENTATONIC.length];
    push(0.06 + 0.045 * Math.min(word.length, 12), base * 2 ** (semitones / 12));
    push(/[.!?]$/.test(word) ? 0.25 : /[,;:]$/.test(word) ? 0.12 : 0.05, 0);
  }
  if (total === 0) push(0.3, 0); // whitespace-only input: a short silence, still a valid file
  const samples = new Int16Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    for (let i = 0; i < chunk.length; i++) samples[offset + i] = round(chunk[i] * 0.3 * 32767);
    offset += chunk.length;
  }
  return samples;
}

export function speech(json: unknown, ctx: HandlerContext): Response {
  const body = bodyObject(json);
  const input = requiredString(body, 'input', { maxLength: 4096 });
  const voiceValue = body.voice;
  let voice: string;
  if (typeof voiceValue === 'string' && voiceValue) voice = voiceValue;
  else if (isObject(voiceValue) && typeof voiceValue.id === 'string') voice = voiceValue.id;
  else if (voiceValue === undefined || voiceValue === null) throw missing('voice');
  else throw invalidType('voice', 'a string or an object with an id', voiceValue);
  const format = optionalEnum(body, 'response_format', SPEECH_FORMATS) ?? 'mp3';
  const speed = optionalNumber(body, 'speed', 0.25, 4) ?? 1;
  const instructions = optionalString(body, 'instructions');
  if (instructions && instructions.length > 4096)
    throw invalid("Invalid 'instructions': string too long.", 'instructions', 'string_above_max_length');
  const streamFormat = optionalEnum(body, 'stream_format', ['audio', 'sse'] as const) ?? 'audio';

  const samples = synthesize(input, voice, speed);
  const bytes = format === 'pcm' ? pcmBytes(samples) : encodeWav(samples);
  const contentType = format === 'pcm' ? 'audio/pcm' : 'audio/wav';

  if (streamFormat === 'sse') {
    const inputTokens = countTokens(input);
    const outputTokens = Math.ceil((samples.length / SAMPLE_RATE) * AUDIO_TOKENS_PER_SECOND);
    function* events(): Generator<string> {
      for (let offset = 0; offset < bytes.length; offset += 16 * 1024) {
        const audio = bytes.subarray(offset, offset + 16 * 1024).toString('base64');
        yield sseEvent({ type: 'speech.audio.delta', audio });
      }
      yield sseEvent({
        type: 'speech.audio.done',
        usage: { input_tokens: inputTokens, output_tokens: outputTokens, total_tokens: inputTokens + outputTokens },
      });
    }
    return sseResponse(events(), ctx.pacing);
  }
  return binaryResponse(bytes, contentType, ctx.pacing);
}

const TRANSCRIPTION_FORMATS = ['json', 'text', 'srt', 'verbose_json', 'vtt'] as const;
const TRANSCRIPTION_FIELDS = ['model', 'language', 'prompt', 'response_format', 'temperature', 'stream'];
const LANGUAGES: Record<string, string> = {
  en: 'english',
  fr: 'french',
  de: 'german',
  es: 'spanish',
  it: 'italian',
  pt: 'portuguese',
  nl: 'dutch',
  ja: 'japanese',
  zh: 'chinese',
  ko: 'korean',
  ru: 'russian',
  pl: 'polish',
};

/** Seconds as SRT (00:00:01,500) or VTT (00:00:01.500) time. */
function timestamp(seconds: number, separator: ',' | '.'): string {
  const ms = Math.round(seconds * 1000);
  const pad = (value: number, width = 2) => String(value).padStart(width, '0');
  return `${pad(Math.floor(ms / 3_600_000))}:${pad(Math.floor(ms / 60_000) % 60)}:${pad(Math.floor(ms / 1000) % 60)}${separator}${pad(ms % 1000, 3)}`;
}

export async function transcription(form: FormData | undefined, ctx: HandlerContext): Promise<Response> {
  const file = form?.get('file') ?? null;
  if (!form || file === null) throw missing('file');
  if (typeof file === 'string') throw invalidType('file', 'a file', file);
  if (file.size === 0) throw invalid("Invalid file 'file': the audio file is empty.", 'file', 'empty_file');
  if (file.size > MAX_TRANSCRIPTION_BYTES) {
    throw new DemoError(
      413,
      `Maximum content size limit (${MAX_TRANSCRIPTION_BYTES}) exceeded.`,
      'file',
      'file_too_large',
    );
  }
  const fields = formFields(form, TRANSCRIPTION_FIELDS);
  const format = optionalEnum(fields, 'response_format', TRANSCRIPTION_FORMATS) ?? 'json';
  const languageCode = optionalString(fields, 'language');
  const prompt = optionalString(fields, 'prompt') ?? '';
  const stream = fields.stream === 'true';
  const granularities = [...form.getAll('timestamp_granularities[]'), ...form.getAll('timestamp_granularities')];

  const bytes = new Uint8Array(await file.arrayBuffer());
  const name = 'name' in file && typeof file.name === 'string' && file.name ? file.name : 'audio';
  const wav = parseWav(bytes);
  const duration = Math.max(
    0.1,
    Math.round((wav ? wav.durationSeconds : bytes.length / ESTIMATED_BYTES_PER_SECOND) * 100) / 100,
  );
  let text = `Demo transcription of ${name} (${bytes.length} bytes, ${sha256Hex(bytes).slice(0, 8)}).`;
  if (wav) text += ` The audio lasts ${duration.toFixed(2)} seconds.`;

  const textTokens = countTokens(prompt);
  const audioTokens = Math.ceil(duration * AUDIO_TOKENS_PER_SECOND);
  const outputTokens = countTokens(text);
  // json (and streams) bill tokens, like gpt-4o-transcribe; verbose_json bills seconds, like whisper-1.
  const tokenUsage = {
    type: 'tokens',
    input_tokens: textTokens + audioTokens,
    input_token_details: { text_tokens: textTokens, audio_tokens: audioTokens },
    output_tokens: outputTokens,
    total_tokens: textTokens + audioTokens + outputTokens,
  };

  if (stream && (format === 'json' || format === 'text')) {
    function* events(): Generator<string> {
      for (const delta of chunkTokens(text, 3)) yield sseEvent({ type: 'transcript.text.delta', delta });
      yield sseEvent({ type: 'transcript.text.done', text, usage: tokenUsage });
    }
    return sseResponse(events(), ctx.pacing);
  }
  const plain = (body: string) =>
    new Response(body, { status: 200, headers: { 'content-type': 'text/plain; charset=utf-8' } });
  switch (format) {
    case 'text':
      return plain(`${text}\n`);
    case 'srt':
      return plain(`1\n${timestamp(0, ',')} --> ${timestamp(duration, ',')}\n${text}\n\n`);
    case 'vtt':
      return plain(`WEBVTT\n\n${timestamp(0, '.')} --> ${timestamp(duration, '.')}\n${text}\n\n`);
    case 'verbose_json': {
      const words = text.split(/\s+/).filter(Boolean);
      const step = duration / words.length;
      return jsonResponse({
        task: 'transcribe',
        language: languageCode ? (LANGUAGES[languageCode.toLowerCase()] ?? languageCode) : 'english',
        duration,
        text,
        ...(granularities.includes('word')
          ? {
              words: words.map((word, i) => ({
                word,
                start: roundSeconds(i * step),
                end: roundSeconds((i + 1) * step),
              })),
            }
          : {}),
        segments: [
          {
            id: 0,
            seek: 0,
            start: 0,
            end: duration,
            text: ` ${text}`,
            // Stand-in token ids: a hash of each demo token, in the range of a 50k vocabulary.
            tokens: splitTokens(text).map((piece) => fnv1a(piece) % 50_000),
            temperature: 0,
            avg_logprob: -0.1,
            compression_ratio: 1,
            no_speech_prob: 0,
          },
        ],
        usage: { type: 'duration', seconds: Math.ceil(duration) },
      });
    }
    default:
      return jsonResponse({ text, usage: tokenUsage });
  }
}

function roundSeconds(seconds: number): number {
  return Math.round(seconds * 100) / 100;
}
