import { splitFailure } from './friendly-messages';
import { isApiError } from './http';

export interface FormErrors<F extends string> {
  /** Messages to show under each known field. */
  fields: Partial<Record<F, string[]>>;
  /** What belongs in the form's alert: the message, or details about fields this form does not have. */
  general: string[];
}

/**
 * Splits a failed submission into messages under the form's own fields and the rest for the alert, each written
 * for people (lib/friendly-messages.ts).
 */
export function toFormErrors<F extends string>(error: unknown, fieldNames: readonly F[]): FormErrors<F> {
  if (!error) return { fields: {}, general: [] };
  if (!isApiError(error)) return { fields: {}, general: ['Something went wrong. Please try again.'] };
  return splitFailure(error, fieldNames);
}
