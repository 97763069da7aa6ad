import type { ApiSuccess } from '@switchyard/shared-dto';

export type Envelope<T> = ApiSuccess<T>;

/** The success envelope of every /api/v1 answer (docs/decisions.md#answers-and-errors). */
export function envelope<T>(data: T, message?: string): Envelope<T> {
  return { success: true, ...(message ? { message } : {}), data, timestamp: new Date().toISOString() };
}
