// The server's validation messages rewritten for people: pure functions (no HTTP client), unit-tested beside.
import type { ApiErrorDetail } from '@switchyard/shared-dto';

/** What the fields of the dashboard's forms are called on screen, for messages that name them. */
const FIELD_WORDS: Record<string, string> = {
  email: 'email address',
  password: 'password',
  currentPassword: 'current password',
  name: 'name',
  clientName: 'app name',
  redirectUris: 'redirect URIs',
  requestedScopes: 'scopes',
  accessTokenTtlSeconds: 'access token lifetime',
  refreshTokenTtlSeconds: 'refresh token lifetime',
  requestsPerMinute: 'requests per minute',
  amount: 'amount',
  count: 'number of cards',
  code: 'gift card code',
  expiresAt: 'expiry date',
  handle: 'handle',
  title: 'title',
  prompt: 'description',
  monthly: 'monthly cap',
  perRequest: 'per-request cap',
};

/** "clientName" → "app name"; a field without a name of its own in words ("fooBar" → "foo bar"). */
function fieldWords(field: string): string {
  return (
    FIELD_WORDS[field] ??
    field
      .replace(/([a-z])([A-Z])/g, '$1 $2')
      .replace(/_/g, ' ')
      .toLowerCase()
  );
}

const sentence = (text: string) => {
  const trimmed = text.trim();
  const capitalised = trimmed.charAt(0).toUpperCase() + trimmed.slice(1);
  return /[.!?]$/.test(capitalised) ? capitalised : `${capitalised}.`;
};

/**
 * The server's validation messages ("email must be a valid email address", class-validator's "name must be
 * shorter than or equal to 100 characters") as sentences for people, per field. A message the rules do not know
 * keeps its words, with the field's name in words and a capital and a full stop.
 */
export function friendlyMessage(field: string | null, message: string): string {
  const words = field ? fieldWords(field) : 'this';
  const rules: [RegExp, (match: RegExpMatchArray) => string][] = [
    [/must be (?:a valid email address|an email)/, () => 'Enter an email address such as name@example.com.'],
    [
      /must be at least (\d+) characters|longer than or equal to (\d+) characters/,
      (m) => `Use at least ${m[1] ?? m[2]} characters for the ${words}.`,
    ],
    [/shorter than or equal to (\d+) characters/, (m) => `Use at most ${m[1]} characters for the ${words}.`],
    [/should not be empty|must not be empty/, () => `Enter the ${words}.`],
    [/should not exist/, () => 'The page sent something the server does not take: reload the page and try again.'],
    [/must not be less than (-?[\d.]+)/, (m) => `The ${words} must be at least ${m[1]}.`],
    [/must not be greater than (-?[\d.]+)/, (m) => `The ${words} must be at most ${m[1]}.`],
    [/must be a number with at most 2 decimals/, () => `Enter the ${words} as a number such as 10 or 12.50.`],
    [/must be an integer/, () => `Enter the ${words} as a whole number.`],
    [/must be a number/, () => `Enter the ${words} as a number.`],
    [/must be one of the following values: (.*)/, (m) => `Choose the ${words} from: ${m[1]}.`],
    [/must be a URL|must be an URL/, () => `Enter the ${words} as a full address starting with https://.`],
    [/must be a boolean/, () => `Choose yes or no for the ${words}.`],
    [/must be a string|must be an array/, () => `The ${words} is missing or not in the right form.`],
  ];
  for (const [pattern, rewrite] of rules) {
    const match = message.match(pattern);
    if (match) return rewrite(match);
  }
  // Else the server's own words, which name the field first as written in code: put its name in words.
  const named = field && message.startsWith(`${field} `) ? `The ${words} ${message.slice(field.length + 1)}` : message;
  return sentence(named);
}

/** The alert's line for a refused form: "Invalid request: check email, password" in words. */
function friendlyGeneral(message: string, anyField: boolean): string {
  if (/^Invalid request/.test(message)) return anyField ? 'Please fix what is marked below.' : 'Please check the form.';
  return sentence(message);
}

export interface FormErrorParts<F extends string> {
  fields: Partial<Record<F, string[]>>;
  general: string[];
}

/** A refused submission (its message and details) as friendly messages under the form's fields and for its alert. */
export function splitFailure<F extends string>(
  failure: { message: string; details: readonly ApiErrorDetail[] },
  fieldNames: readonly F[],
): FormErrorParts<F> {
  const fields: Partial<Record<F, string[]>> = {};
  const general: string[] = [];
  for (const detail of failure.details) {
    const name = fieldNames.find((candidate) => candidate === detail.field);
    const messages = detail.messages.map((message) => friendlyMessage(detail.field ?? null, message));
    if (name) fields[name] = [...(fields[name] ?? []), ...messages];
    else general.push(...messages);
  }
  // With every problem shown under a field, a generic "validation failed" on top only repeats them.
  const anyField = Object.keys(fields).length > 0;
  if (!anyField || general.length > 0) general.unshift(friendlyGeneral(failure.message, anyField));
  return { fields, general };
}
