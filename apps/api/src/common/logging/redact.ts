import { OAUTH_ACCESS_TOKEN_PREFIX, OAUTH_REFRESH_TOKEN_PREFIX } from '../auth/principal';

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Prefixes of Switchyard's own bearer secrets other than API keys (whose prefix is configurable). */
const TOKEN_PREFIXES = [
  OAUTH_ACCESS_TOKEN_PREFIX,
  OAUTH_REFRESH_TOKEN_PREFIX,
  'sys_', // dashboard sessions (accounts.service.ts)
  'syi_', // one-time internal gateway credentials (spaces-gateway.client.ts)
  'sycs_', // OAuth client secrets (clients.service.ts)
];

export const REDACTED = '[redacted]';

/**
 * A safety net under the rule that nothing logs a credential: builds a function that masks anything in a log
 * message that looks like one, keeping only its prefix so a reader still sees what kind of secret leaked.
 * Masked: API keys (API_KEY_PREFIX and 16+ base62 characters), OAuth access and refresh tokens, session tokens,
 * internal credentials, client secrets, gift-card codes, Stripe secrets, the value of any `Bearer` or `Basic`
 * authorization, and the password in a URL's user-info (a DATABASE_URL in a connection error).
 */
export function secretRedactor(apiKeyPrefix: string): (text: string) => string {
  const patterns: Array<[RegExp, string]> = [
    [/\b(Bearer|Basic)\s+[^\s"',;]+/gi, `$1 ${REDACTED}`],
    [
      new RegExp(`(?<![A-Za-z0-9])(${[...TOKEN_PREFIXES, apiKeyPrefix].map(escape).join('|')})[A-Za-z0-9_-]{16,}`, 'g'),
      `$1${REDACTED}`,
    ],
    [/\b(SYGC)-?(?:[0-9A-Z]{4}-?){3}[0-9A-Z]{4}\b/gi, `$1-${REDACTED}`],
    [/\b(sk_live_|sk_test_|rk_live_|rk_test_|whsec_)[A-Za-z0-9]{8,}/g, `$1${REDACTED}`],
    [/(\b[a-z][a-z0-9+.-]*:\/\/[^\s:/@]*:)[^\s@/]+@/gi, `$1${REDACTED}@`],
  ];
  return (text) => patterns.reduce((out, [pattern, replacement]) => out.replace(pattern, replacement), text);
}
