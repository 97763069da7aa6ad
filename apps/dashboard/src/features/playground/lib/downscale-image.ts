// Turns a picture the user chose into a data URL for an image_url part: as it is when it is already a
// supported type of at most ~800 KB, otherwise redrawn on a canvas as JPEG until it fits (image-sizing.ts).
import { canSendAsIs, firstAttempt, IMAGE_TARGET_BYTES, nextAttempt } from './image-sizing';

export interface PreparedImage {
  dataUrl: string;
  name: string;
  bytes: number;
  width: number;
  height: number;
  originalBytes: number;
  /** Whether it was redrawn smaller (or converted). */
  downscaled: boolean;
}

function readAsDataUrl(blob: Blob): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result));
    reader.onerror = () => reject(reader.error ?? new Error('Could not read the file.'));
    reader.readAsDataURL(blob);
  });
}

function encode(bitmap: ImageBitmap, width: number, height: number, quality: number): Promise<Blob> {
  const canvas = document.createElement('canvas');
  canvas.width = width;
  canvas.height = height;
  const context = canvas.getContext('2d');
  if (!context) return Promise.reject(new Error('This browser cannot redraw images.'));
  // JPEG has no transparency: paint white behind it rather than black.
  context.fillStyle = '#ffffff';
  context.fillRect(0, 0, width, height);
  context.imageSmoothingQuality = 'high';
  context.drawImage(bitmap, 0, 0, width, height);
  return new Promise((resolve, reject) =>
    canvas.toBlob(
      (blob) => (blob ? resolve(blob) : reject(new Error('Could not encode the image.'))),
      'image/jpeg',
      quality,
    ),
  );
}

export async function prepareImage(file: File, target = IMAGE_TARGET_BYTES): Promise<PreparedImage> {
  if (!file.type.startsWith('image/')) throw new Error(`${file.name} is not an image.`);
  let bitmap: ImageBitmap;
  try {
    bitmap = await createImageBitmap(file);
  } catch {
    throw new Error(`${file.name} could not be read as an image. Use a JPEG, PNG, GIF or WebP file.`);
  }
  try {
    if (canSendAsIs(file, target)) {
      return {
        dataUrl: await readAsDataUrl(file),
        name: file.name,
        bytes: file.size,
        width: bitmap.width,
        height: bitmap.height,
        originalBytes: file.size,
        downscaled: false,
      };
    }
    let attempt: ReturnType<typeof nextAttempt> = firstAttempt(bitmap.width, bitmap.height);
    while (attempt) {
      const blob = await encode(bitmap, attempt.width, attempt.height, attempt.quality);
      if (blob.size <= target) {
        return {
          dataUrl: await readAsDataUrl(blob),
          name: file.name,
          bytes: blob.size,
          width: attempt.width,
          height: attempt.height,
          originalBytes: file.size,
          downscaled: true,
        };
      }
      attempt = nextAttempt(attempt, blob.size, target);
    }
    throw new Error(`${file.name} could not be made small enough to send.`);
  } finally {
    bitmap.close();
  }
}
