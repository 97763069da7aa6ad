/**
 * WAV (RIFF, PCM) writing and reading. The demo's speech is 16-bit mono PCM at 24 kHz, the format of OpenAI's
 * `pcm` output; the WAV file is that PCM behind a 44-byte header. The reader lets the transcription endpoint
 * report the real duration of a WAV upload (e.g. one produced by the speech endpoint).
 */
export const SAMPLE_RATE = 24_000;

/** 16-bit little-endian PCM bytes. */
export function pcmBytes(samples: Int16Array): Buffer {
  const out = Buffer.alloc(samples.length * 2);
  for (let i = 0; i < samples.length; i++) out.writeInt16LE(samples[i], i * 2);
  return out;
}

export function encodeWav(samples: Int16Array, sampleRate = SAMPLE_RATE): Buffer {
  const data = pcmBytes(samples);
  const header = Buffer.alloc(44);
  header.write('RIFF', 0, 'latin1');
  header.writeUInt32LE(36 + data.length, 4);
  header.write('WAVE', 8, 'latin1');
  header.write('fmt ', 12, 'latin1');
  header.writeUInt32LE(16, 16); // fmt chunk size
  header.writeUInt16LE(1, 20); // PCM
  header.writeUInt16LE(1, 22); // mono
  header.writeUInt32LE(sampleRate, 24);
  header.writeUInt32LE(sampleRate * 2, 28); // byte rate
  header.writeUInt16LE(2, 32); // block align
  header.writeUInt16LE(16, 34); // bits per sample
  header.write('data', 36, 'latin1');
  header.writeUInt32LE(data.length, 40);
  return Buffer.concat([header, data]);
}

export interface WavInfo {
  format: number;
  channels: number;
  sampleRate: number;
  bitsPerSample: number;
  dataBytes: number;
  durationSeconds: number;
}

/** Reads a WAV header by walking its chunks; undefined when the bytes are not a usable WAV file. */
export function parseWav(bytes: Uint8Array): WavInfo | undefined {
  const view = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (view.length < 12 || view.toString('latin1', 0, 4) !== 'RIFF' || view.toString('latin1', 8, 12) !== 'WAVE') {
    return undefined;
  }
  let offset = 12;
  let fmt: Omit<WavInfo, 'dataBytes' | 'durationSeconds'> | undefined;
  while (offset + 8 <= view.length) {
    const id = view.toString('latin1', offset, offset + 4);
    const size = view.readUInt32LE(offset + 4);
    const body = offset + 8;
    if (id === 'fmt ' && body + 16 <= view.length) {
      fmt = {
        format: view.readUInt16LE(body),
        channels: view.readUInt16LE(body + 2),
        sampleRate: view.readUInt32LE(body + 4),
        bitsPerSample: view.readUInt16LE(body + 14),
      };
    } else if (id === 'data' && fmt) {
      // Streamed WAVs may carry a placeholder size: trust the bytes actually present.
      const dataBytes = Math.min(size, view.length - body);
      const bytesPerSecond = fmt.sampleRate * fmt.channels * Math.max(1, fmt.bitsPerSample / 8);
      if (!bytesPerSecond) return undefined;
      return { ...fmt, dataBytes, durationSeconds: dataBytes / bytesPerSecond };
    }
    offset = body + size + (size % 2); // chunks are word-aligned
  }
  return undefined;
}
