import { CONSTRAINT_FLAGS, LEVEL_IDC, PROFILE_IDC, type H264Stream } from './h264';

/**
 * A minimal MP4 (ISO BMFF) muxer for one H.264 video track: ftyp, then moov (placed first, "fast start", so a
 * player can begin before the whole file arrives), then mdat with every frame as one sample in one chunk.
 * All samples are sync samples (every frame is IDR), so no stss box is needed.
 *
 * Reference: ISO/IEC 14496-12 (boxes) and 14496-15 (avc1 / avcC).
 */

function u32(value: number): Buffer {
  const out = Buffer.alloc(4);
  out.writeUInt32BE(value >>> 0);
  return out;
}

function u16(value: number): Buffer {
  const out = Buffer.alloc(2);
  out.writeUInt16BE(value);
  return out;
}

function box(type: string, ...payload: Uint8Array[]): Buffer {
  const body = Buffer.concat(payload);
  return Buffer.concat([u32(8 + body.length), Buffer.from(type, 'latin1'), body]);
}

function fullBox(type: string, version: number, flags: number, ...payload: Uint8Array[]): Buffer {
  return box(type, u32((version << 24) | flags), ...payload);
}

/** Identity transformation matrix (16.16 and 2.30 fixed point). */
const MATRIX = Buffer.concat([0x00010000, 0, 0, 0, 0x00010000, 0, 0, 0, 0x40000000].map(u32));

export interface Mp4Options {
  /** Encoded (cropped) picture size. */
  width: number;
  height: number;
  /** Size the track header asks players to display the video at (the requested size). */
  displayWidth: number;
  displayHeight: number;
  fps: number;
}

export function muxMp4(stream: H264Stream, options: Mp4Options): Buffer {
  const timescale = 1000;
  const sampleDelta = Math.round(timescale / options.fps);
  const count = stream.frames.length;
  const duration = count * sampleDelta;
  // Each sample is its NAL unit behind a 4-byte length (avcC lengthSizeMinusOne = 3).
  const samples = stream.frames.map((nal) => Buffer.concat([u32(nal.length), nal]));

  const avcC = box(
    'avcC',
    Uint8Array.of(1, PROFILE_IDC, CONSTRAINT_FLAGS, LEVEL_IDC, 0xff, 0xe1), // version, profile, compat, level, 4-byte lengths, 1 SPS
    u16(stream.sps.length),
    stream.sps,
    Uint8Array.of(1), // 1 PPS
    u16(stream.pps.length),
    stream.pps,
  );
  const compressorName = Buffer.alloc(32);
  const avc1 = box(
    'avc1',
    Buffer.alloc(6), // reserved
    u16(1), // data_reference_index
    Buffer.alloc(16), // pre_defined + reserved
    u16(options.width),
    u16(options.height),
    u32(0x00480000), // 72 dpi
    u32(0x00480000),
    u32(0), // reserved
    u16(1), // frame_count
    compressorName,
    u16(0x0018), // depth
    u16(0xffff), // pre_defined = -1
    avcC,
  );

  const stbl = (chunkOffset: number) =>
    box(
      'stbl',
      fullBox('stsd', 0, 0, u32(1), avc1),
      fullBox('stts', 0, 0, u32(1), u32(count), u32(sampleDelta)),
      fullBox('stsc', 0, 0, u32(1), u32(1), u32(count), u32(1)),
      fullBox('stsz', 0, 0, u32(0), u32(count), ...samples.map((s) => u32(s.length))),
      fullBox('stco', 0, 0, u32(1), u32(chunkOffset)),
    );

  const moov = (chunkOffset: number) =>
    box(
      'moov',
      fullBox(
        'mvhd',
        0,
        0,
        u32(0),
        u32(0), // creation / modification time
        u32(timescale),
        u32(duration),
        u32(0x00010000),
        u16(0x0100),
        Buffer.alloc(10), // rate 1.0, volume 1.0, reserved
        MATRIX,
        Buffer.alloc(24), // matrix, pre_defined
        u32(2), // next_track_ID
      ),
      box(
        'trak',
        fullBox(
          'tkhd',
          0,
          0x000003, // enabled, in movie
          u32(0),
          u32(0),
          u32(1),
          u32(0),
          u32(duration), // times, track_ID 1, reserved, duration
          Buffer.alloc(8),
          u16(0),
          u16(0),
          u16(0),
          u16(0), // reserved, layer, alternate_group, volume, reserved
          MATRIX,
          u32(options.displayWidth * 0x10000),
          u32(options.displayHeight * 0x10000),
        ),
        box(
          'mdia',
          fullBox('mdhd', 0, 0, u32(0), u32(0), u32(timescale), u32(duration), u16(0x55c4), u16(0)), // language 'und'
          fullBox(
            'hdlr',
            0,
            0,
            u32(0),
            Buffer.from('vide', 'latin1'),
            Buffer.alloc(12),
            Buffer.from('VideoHandler\0', 'latin1'),
          ),
          box(
            'minf',
            fullBox('vmhd', 0, 1, Buffer.alloc(8)), // graphicsmode + opcolor
            box('dinf', fullBox('dref', 0, 0, u32(1), fullBox('url ', 0, 1))), // media is in this file
            stbl(chunkOffset),
          ),
        ),
      ),
    );

  const ftyp = box('ftyp', Buffer.from('isom', 'latin1'), u32(0x200), Buffer.from('isomiso2avc1mp41', 'latin1'));
  // moov's size does not depend on the offset value, so build it once to learn where mdat's payload starts.
  const moovSize = moov(0).length;
  const mdatPayload = Buffer.concat(samples);
  const offset = ftyp.length + moovSize + 8;
  return Buffer.concat([ftyp, moov(offset), box('mdat', mdatPayload)]);
}
