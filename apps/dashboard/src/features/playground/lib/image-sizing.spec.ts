import { canSendAsIs, firstAttempt, formatBytes, IMAGE_TARGET_BYTES, nextAttempt } from './image-sizing';

describe('image sizing for vision (about 800 KB)', () => {
  it('sends a small JPEG, PNG, GIF or WebP as it is, and redraws anything else', () => {
    expect(canSendAsIs({ size: 300_000, type: 'image/png' })).toBe(true);
    expect(canSendAsIs({ size: IMAGE_TARGET_BYTES, type: 'image/webp' })).toBe(true);
    expect(canSendAsIs({ size: IMAGE_TARGET_BYTES + 1, type: 'image/jpeg' })).toBe(false);
    expect(canSendAsIs({ size: 10_000, type: 'image/bmp' })).toBe(false);
  });

  it('shrinks the sides by the square root of the byte ratio, with a margin', () => {
    // 4x the target: half the sides, less 10 %.
    expect(firstAttempt(2000, 1000, IMAGE_TARGET_BYTES * 4)).toEqual({ width: 900, height: 450, quality: 0.85 });
  });

  it('caps the long side at 2048 and never enlarges', () => {
    expect(firstAttempt(8000, 4000, 100_000)).toEqual({ width: 2048, height: 1024, quality: 0.85 });
    const small = firstAttempt(300, 200, 100_000);
    expect(small).toEqual({ width: 300, height: 200, quality: 0.85 });
  });

  it('lowers the quality first, then the size, and gives up below 64 pixels', () => {
    const first = { width: 1000, height: 500, quality: 0.85 };
    const second = nextAttempt(first);
    expect(second).toEqual({ width: 1000, height: 500, quality: 0.7 });
    const third = nextAttempt(second!);
    expect(third).toEqual({ width: 1000, height: 500, quality: 0.55 });
    expect(nextAttempt(third!)).toEqual({ width: 750, height: 375, quality: 0.7 });
    expect(nextAttempt({ width: 80, height: 40, quality: 0.55 })).toBeNull();
  });

  it('formats sizes for people', () => {
    expect(formatBytes(512)).toBe('512 B');
    expect(formatBytes(800 * 1024)).toBe('800 KB');
    expect(formatBytes(1.5 * 1024 * 1024)).toBe('1.5 MB');
  });
});
