import { isApiError } from './http';

export interface FormErrors<F extends string> {
  /** Messages to show under each known field. */
  fields: Partial<Record<F, string[]>>;
  /** What belongs in the form's alert: the message, or details about fields this form does not have. */
  general: string[];
}

/** Splits a failed submission into messages under the form's own fields and the rest for the alert. */
export function toFormErrors<F extends string>(error: unknown, fieldNames: readonly F[]): FormErrors<F> {
  if (!error) return { fields: {}, general: [] };
  if (!isApiError(error)) return { fields: {}, general: ['Something went wrong. Please try again.'] };

  const fields: Partial<Record<F, string[]>> = {};
  const general: string[] = [];
  for (const detail of error.details) {
    const name = fieldNames.find((candidate) => candidate === detail.field);
    if (name) fields[name] = [...(fields[name] ?? []), ...detail.messages];
    else general.push(...detail.messages);
  }
  // With every problem shown under a field, a generic "validation failed" on top only repeats them.
  if (Object.keys(fields).length === 0 || general.length > 0) general.unshift(error.message);
  return { fields, general };
}
