import { canSendAsIs, firstAttempt, formatBytes, IMAGE_TARGET_BYTES, nextAttempt } from './image-sizing';

describe('image sizing for vision (about 800 KB)', () => {
  it('sends a small JPEG, PNG, GIF or WebP as it is, and redraws anything else', () => {
    expect(canSendAsIs({ size: 300_000, type: 'image/png' })).toBe(true);
    expect(canSendAsIs({ size: IMAGE_TARGET_BYTES, type: 'image/webp' })).toBe(true);
    expect(canSendAsIs({ size: IMAGE_TARGET_BYTES + 1, type: 'image/jpeg' })).toBe(false);
    expect(canSendAsIs({ size: 10_000, type: 'image/bmp' })).toBe(false);
  });

  it('tries the picture at its own size first, the long side capped at 2048', () => {
    expect(firstAttempt(1600, 1200)).toEqual({ width: 1600, height: 1200, quality: 0.85 });
    expect(firstAttempt(8000, 4000)).toEqual({ width: 2048, height: 1024, quality: 0.85 });
  });

  it('then shrinks the sides by the square root of what the encoding measured, with a margin', () => {
    // Four times the target: half the sides, less 5 %.
    expect(nextAttempt({ width: 2000, height: 1000, quality: 0.85 }, IMAGE_TARGET_BYTES * 4)).toEqual({
      width: 950,
      height: 475,
      quality: 0.85,
    });
  });

  it('shrinks by at least 10 % a step, and gives up below 64 pixels', () => {
    expect(nextAttempt({ width: 1000, height: 500, quality: 0.85 }, IMAGE_TARGET_BYTES + 1)).toEqual({
      width: 900,
      height: 450,
      quality: 0.85,
    });
    expect(nextAttempt({ width: 70, height: 40, quality: 0.85 }, IMAGE_TARGET_BYTES * 2)).toBeNull();
  });

  it('formats sizes for people', () => {
    expect(formatBytes(512)).toBe('512 B');
    expect(formatBytes(800 * 1024)).toBe('800 KB');
    expect(formatBytes(1.5 * 1024 * 1024)).toBe('1.5 MB');
  });
});
