/**
 * A deliberately tiny H.264 encoder: Constrained Baseline profile, every frame an IDR picture made only of
 * I_PCM macroblocks (mb_type 25: the 16×16 luma and 2×8×8 chroma samples stored raw). That needs no
 * transform, prediction or entropy coding of residuals, so it fits in a page of code, yet the output is a
 * standard stream that any H.264 decoder (browsers, ffmpeg, phones) plays. The price is size (384 bytes per
 * macroblock), which is why the demo renders its videos at a small resolution.
 *
 * References: ITU-T H.264 §7.3.2.1 (SPS), §7.3.2.2 (PPS), §7.3.3 (slice header), §7.3.5 (macroblock layer),
 * §7.4.1 (emulation prevention), Annex E (VUI).
 */

// Per-pixel / per-sample loops use these module-level bindings rather than `Math.x`: under Jest's vm sandbox
// every global lookup is an interceptor call, which made the loops 10x slower in tests.
const { min, max, round } = Math;

class BitWriter {
  private readonly bytes: number[] = [];
  private current = 0;
  private count = 0;

  bit(value: number): void {
    this.current = (this.current << 1) | (value & 1);
    if (++this.count === 8) {
      this.bytes.push(this.current);
      this.current = 0;
      this.count = 0;
    }
  }

  /** u(n): n bits, most significant first (n ≤ 32). */
  u(bits: number, value: number): void {
    for (let i = bits - 1; i >= 0; i--) this.bit(Math.floor(value / 2 ** i) & 1);
  }

  /** ue(v): unsigned Exp-Golomb. */
  ue(value: number): void {
    const x = value + 1;
    const length = Math.floor(Math.log2(x));
    for (let i = 0; i < length; i++) this.bit(0);
    this.u(length + 1, x);
  }

  /** se(v): signed Exp-Golomb (k > 0 → 2k − 1, k ≤ 0 → −2k). */
  se(value: number): void {
    this.ue(value > 0 ? 2 * value - 1 : -2 * value);
  }

  get aligned(): boolean {
    return this.count === 0;
  }

  alignWithZeros(): void {
    while (this.count !== 0) this.bit(0);
  }

  /** Whole bytes, only when aligned (the PCM samples): the fast path. */
  raw(values: Uint8Array): void {
    if (!this.aligned) throw new Error('BitWriter.raw: not byte-aligned');
    for (let i = 0; i < values.length; i++) this.bytes.push(values[i]);
  }

  /** rbsp_trailing_bits(): a stop bit then zeros to the byte boundary. */
  trailingBits(): void {
    this.bit(1);
    this.alignWithZeros();
  }

  toBytes(): Uint8Array {
    return Uint8Array.from(this.bytes);
  }
}

/** NAL unit (without start code or length prefix): header byte plus the RBSP with emulation prevention. */
function nalUnit(refIdc: number, type: number, rbsp: Uint8Array): Uint8Array {
  const out: number[] = [(refIdc << 5) | type];
  let zeros = 0;
  for (const byte of rbsp) {
    // Never let 00 00 0x (x ≤ 3) appear inside a NAL unit: insert 03 after two zero bytes.
    if (zeros >= 2 && byte <= 3) {
      out.push(3);
      zeros = 0;
    }
    out.push(byte);
    zeros = byte === 0 ? zeros + 1 : 0;
  }
  return Uint8Array.from(out);
}

export const PROFILE_IDC = 66; // Baseline
export const CONSTRAINT_FLAGS = 0xc0; // constraint_set0 + constraint_set1: Constrained Baseline
export const LEVEL_IDC = 30; // level 3.0: far above what a 96-px stream needs, bitrate included

export interface H264Stream {
  sps: Uint8Array;
  pps: Uint8Array;
  /** One IDR slice NAL unit per frame. */
  frames: Uint8Array[];
}

function macroblocks(size: number): number {
  return Math.ceil(size / 16);
}

function sequenceParameterSet(width: number, height: number, fps: number): Uint8Array {
  const w = new BitWriter();
  w.u(8, PROFILE_IDC);
  w.u(8, CONSTRAINT_FLAGS);
  w.u(8, LEVEL_IDC);
  w.ue(0); // seq_parameter_set_id
  w.ue(0); // log2_max_frame_num_minus4
  w.ue(2); // pic_order_cnt_type 2: output order = decoding order, no POC in slice headers
  w.ue(1); // max_num_ref_frames
  w.u(1, 0); // gaps_in_frame_num_value_allowed_flag
  const mbWidth = macroblocks(width);
  const mbHeight = macroblocks(height);
  w.ue(mbWidth - 1); // pic_width_in_mbs_minus1
  w.ue(mbHeight - 1); // pic_height_in_map_units_minus1
  w.u(1, 1); // frame_mbs_only_flag
  w.u(1, 1); // direct_8x8_inference_flag
  const cropRight = (mbWidth * 16 - width) / 2; // 4:2:0 crop units are 2 pixels
  const cropBottom = (mbHeight * 16 - height) / 2;
  const cropping = cropRight > 0 || cropBottom > 0;
  w.u(1, cropping ? 1 : 0);
  if (cropping) {
    w.ue(0);
    w.ue(cropRight);
    w.ue(0);
    w.ue(cropBottom);
  }
  w.u(1, 1); // vui_parameters_present_flag
  w.u(1, 0); // aspect_ratio_info_present_flag (square pixels)
  w.u(1, 0); // overscan_info_present_flag
  w.u(1, 1); // video_signal_type_present_flag
  w.u(3, 5); // video_format: unspecified
  w.u(1, 0); // video_full_range_flag: limited (16-235) range
  w.u(1, 1); // colour_description_present_flag: BT.601 (SMPTE 170M), matching the RGB→YCbCr conversion
  w.u(8, 6); // colour_primaries
  w.u(8, 6); // transfer_characteristics
  w.u(8, 6); // matrix_coefficients
  w.u(1, 0); // chroma_loc_info_present_flag
  w.u(1, 1); // timing_info_present_flag
  w.u(32, 1); // num_units_in_tick
  w.u(32, 2 * fps); // time_scale (two ticks per frame)
  w.u(1, 1); // fixed_frame_rate_flag
  w.u(1, 0); // nal_hrd_parameters_present_flag
  w.u(1, 0); // vcl_hrd_parameters_present_flag
  w.u(1, 0); // pic_struct_present_flag
  w.u(1, 1); // bitstream_restriction_flag: tells decoders no frame is ever held back for reordering
  w.u(1, 1); // motion_vectors_over_pic_boundaries_flag
  w.ue(0); // max_bytes_per_pic_denom
  w.ue(0); // max_bits_per_mb_denom
  w.ue(15); // log2_max_mv_length_horizontal
  w.ue(15); // log2_max_mv_length_vertical
  w.ue(0); // max_num_reorder_frames
  w.ue(1); // max_dec_frame_buffering
  w.trailingBits();
  return nalUnit(3, 7, w.toBytes());
}

function pictureParameterSet(): Uint8Array {
  const w = new BitWriter();
  w.ue(0); // pic_parameter_set_id
  w.ue(0); // seq_parameter_set_id
  w.u(1, 0); // entropy_coding_mode_flag: CAVLC
  w.u(1, 0); // bottom_field_pic_order_in_frame_present_flag
  w.ue(0); // num_slice_groups_minus1
  w.ue(0); // num_ref_idx_l0_default_active_minus1
  w.ue(0); // num_ref_idx_l1_default_active_minus1
  w.u(1, 0); // weighted_pred_flag
  w.u(2, 0); // weighted_bipred_idc
  w.se(0); // pic_init_qp_minus26
  w.se(0); // pic_init_qs_minus26
  w.se(0); // chroma_qp_index_offset
  w.u(1, 1); // deblocking_filter_control_present_flag
  w.u(1, 0); // constrained_intra_pred_flag
  w.u(1, 0); // redundant_pic_cnt_present_flag
  w.trailingBits();
  return nalUnit(3, 8, w.toBytes());
}

/**
 * One IDR picture. `yuv` holds the padded picture (width and height rounded up to 16) as I420 planes:
 * Y (W×H), then Cb and Cr (W/2 × H/2 each).
 */
function idrSlice(yuv: Uint8Array, codedWidth: number, codedHeight: number, idrPicId: number): Uint8Array {
  const w = new BitWriter();
  w.ue(0); // first_mb_in_slice
  w.ue(7); // slice_type: I (7 = every slice of the picture is I)
  w.ue(0); // pic_parameter_set_id
  w.u(4, 0); // frame_num (log2_max_frame_num = 4); always 0 in an IDR picture
  w.ue(idrPicId); // idr_pic_id: consecutive IDR pictures must differ
  w.u(1, 0); // dec_ref_pic_marking: no_output_of_prior_pics_flag
  w.u(1, 0); // long_term_reference_flag
  w.se(0); // slice_qp_delta
  w.ue(1); // disable_deblocking_filter_idc: off (PCM samples are exact; nothing to smooth)
  const lumaSize = codedWidth * codedHeight;
  const chromaWidth = codedWidth / 2;
  const chromaSize = lumaSize / 4;
  const luma = new Uint8Array(256);
  const chroma = new Uint8Array(64);
  for (let mbY = 0; mbY < codedHeight / 16; mbY++) {
    for (let mbX = 0; mbX < codedWidth / 16; mbX++) {
      w.ue(25); // mb_type: I_PCM
      w.alignWithZeros(); // pcm_alignment_zero_bit
      for (let y = 0; y < 16; y++) {
        luma.set(
          yuv.subarray((mbY * 16 + y) * codedWidth + mbX * 16, (mbY * 16 + y) * codedWidth + mbX * 16 + 16),
          y * 16,
        );
      }
      w.raw(luma);
      for (const plane of [lumaSize, lumaSize + chromaSize]) {
        for (let y = 0; y < 8; y++) {
          const row = plane + (mbY * 8 + y) * chromaWidth + mbX * 8;
          chroma.set(yuv.subarray(row, row + 8), y * 8);
        }
        w.raw(chroma);
      }
    }
  }
  w.trailingBits();
  return nalUnit(3, 5, w.toBytes());
}

/** RGB (width × height) to I420 at the coded size, edges replicated into the padding, BT.601 limited range. */
function rgbToI420(
  rgb: Uint8Array,
  width: number,
  height: number,
  codedWidth: number,
  codedHeight: number,
): Uint8Array {
  const out = new Uint8Array((codedWidth * codedHeight * 3) / 2);
  const clamp = (v: number) => max(1, min(254, round(v))); // 0 is avoided: old decoders reject PCM 0
  const pixel = (x: number, y: number) => (min(y, height - 1) * width + min(x, width - 1)) * 3;
  for (let y = 0; y < codedHeight; y++) {
    for (let x = 0; x < codedWidth; x++) {
      const o = pixel(x, y);
      out[y * codedWidth + x] = clamp(16 + 0.257 * rgb[o] + 0.504 * rgb[o + 1] + 0.098 * rgb[o + 2]);
    }
  }
  const lumaSize = codedWidth * codedHeight;
  const chromaWidth = codedWidth / 2;
  for (let y = 0; y < codedHeight / 2; y++) {
    for (let x = 0; x < chromaWidth; x++) {
      // Average of the 2×2 block (4:2:0 subsampling).
      const a = pixel(2 * x, 2 * y);
      const b1 = pixel(2 * x + 1, 2 * y);
      const c = pixel(2 * x, 2 * y + 1);
      const d = pixel(2 * x + 1, 2 * y + 1);
      const r = (rgb[a] + rgb[b1] + rgb[c] + rgb[d]) / 4;
      const g = (rgb[a + 1] + rgb[b1 + 1] + rgb[c + 1] + rgb[d + 1]) / 4;
      const b = (rgb[a + 2] + rgb[b1 + 2] + rgb[c + 2] + rgb[d + 2]) / 4;
      out[lumaSize + y * chromaWidth + x] = clamp(128 - 0.148 * r - 0.291 * g + 0.439 * b);
      out[lumaSize + lumaSize / 4 + y * chromaWidth + x] = clamp(128 + 0.439 * r - 0.368 * g - 0.071 * b);
    }
  }
  return out;
}

/** Encodes RGB frames (all `width` × `height`, both even) as an all-intra H.264 stream. */
export function encodeH264(frames: Iterable<Uint8Array>, width: number, height: number, fps: number): H264Stream {
  if (width % 2 !== 0 || height % 2 !== 0) throw new Error('encodeH264: width and height must be even');
  const codedWidth = macroblocks(width) * 16;
  const codedHeight = macroblocks(height) * 16;
  const encoded: Uint8Array[] = [];
  let index = 0;
  for (const rgb of frames) {
    encoded.push(
      idrSlice(rgbToI420(rgb, width, height, codedWidth, codedHeight), codedWidth, codedHeight, index++ % 2),
    );
  }
  return { sps: sequenceParameterSet(width, height, fps), pps: pictureParameterSet(), frames: encoded };
}
