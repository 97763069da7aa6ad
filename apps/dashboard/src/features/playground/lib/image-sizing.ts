// docs/decisions.md#rules-for-clients: an image sent for vision should be about 800 KB before base64, as JPEG, PNG, GIF or
// WebP. A larger (or other) picture is redrawn smaller as JPEG; these functions choose the sizes.

export const IMAGE_TARGET_BYTES = 800 * 1024;
export const VISION_IMAGE_TYPES = ['image/jpeg', 'image/png', 'image/gif', 'image/webp'] as const;
/** No model wants more than this on the long side; it also bounds the canvas. */
export const MAX_IMAGE_SIDE = 2048;
const MIN_IMAGE_SIDE = 64;
const QUALITY = 0.85;

export interface ImageAttempt {
  width: number;
  height: number;
  quality: number;
}

/** Whether a file can be sent as it is: a supported type, and no larger than the target. */
export function canSendAsIs(file: { size: number; type: string }, target = IMAGE_TARGET_BYTES): boolean {
  return file.size <= target && (VISION_IMAGE_TYPES as readonly string[]).includes(file.type);
}

/** The first encoding to try: the picture's own size (the long side at most MAX_IMAGE_SIDE), quality 0.85. */
export function firstAttempt(width: number, height: number): ImageAttempt {
  const scale = Math.min(1, MAX_IMAGE_SIDE / Math.max(width, height));
  return {
    width: Math.max(1, Math.round(width * scale)),
    height: Math.max(1, Math.round(height * scale)),
    quality: QUALITY,
  };
}

/**
 * After an encoding came out too large: bytes grow roughly with the area, so the sides shrink by the square root
 * of target/encoded with a 5 % margin (and by at least 10 %, so every step makes progress); null when that
 * would go below MIN_IMAGE_SIDE.
 */
export function nextAttempt(
  previous: ImageAttempt,
  encodedBytes: number,
  target = IMAGE_TARGET_BYTES,
): ImageAttempt | null {
  const scale = Math.min(0.9, Math.sqrt(target / encodedBytes) * 0.95);
  const width = Math.round(previous.width * scale);
  const height = Math.round(previous.height * scale);
  if (Math.max(width, height) < MIN_IMAGE_SIDE) return null;
  return { width: Math.max(1, width), height: Math.max(1, height), quality: previous.quality };
}

/** "812 KB", "1.4 MB". */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${Math.round(bytes / 1024)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}
