// interface.md section 8: an image sent for vision should be about 800 KB before base64, as JPEG, PNG, GIF or
// WebP. A larger (or other) picture is redrawn smaller as JPEG; these functions choose the sizes.

export const IMAGE_TARGET_BYTES = 800 * 1024;
export const VISION_IMAGE_TYPES = ['image/jpeg', 'image/png', 'image/gif', 'image/webp'] as const;
/** No model wants more than this on the long side; it also bounds the canvas. */
export const MAX_IMAGE_SIDE = 2048;
const MIN_IMAGE_SIDE = 64;
const QUALITIES = [0.85, 0.7, 0.55] as const;

export interface ImageAttempt {
  width: number;
  height: number;
  quality: number;
}

/** Whether a file can be sent as it is: a supported type, and no larger than the target. */
export function canSendAsIs(file: { size: number; type: string }, target = IMAGE_TARGET_BYTES): boolean {
  return file.size <= target && (VISION_IMAGE_TYPES as readonly string[]).includes(file.type);
}

/**
 * The first size to try: bytes grow roughly with the area, so the sides shrink by the square root of
 * target/bytes (with a 10 % margin); the long side is at most MAX_IMAGE_SIDE; never larger than the original.
 */
export function firstAttempt(width: number, height: number, bytes: number, target = IMAGE_TARGET_BYTES): ImageAttempt {
  const byBytes = bytes > target ? Math.sqrt(target / bytes) * 0.9 : 1;
  const bySide = MAX_IMAGE_SIDE / Math.max(width, height);
  const scale = Math.min(1, byBytes, bySide);
  return { width: Math.max(1, Math.round(width * scale)), height: Math.max(1, Math.round(height * scale)), quality: QUALITIES[0] };
}

/** After an encoding came out too large: a lower quality first, then three quarters of the size; null: give up. */
export function nextAttempt(previous: ImageAttempt): ImageAttempt | null {
  const lower = QUALITIES.find((quality) => quality < previous.quality);
  if (lower !== undefined) return { ...previous, quality: lower };
  const width = Math.round(previous.width * 0.75);
  const height = Math.round(previous.height * 0.75);
  if (Math.max(width, height) < MIN_IMAGE_SIDE) return null;
  return { width: Math.max(1, width), height: Math.max(1, height), quality: QUALITIES[1] };
}

/** "812 KB", "1.4 MB". */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${Math.round(bytes / 1024)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}
