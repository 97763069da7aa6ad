import {
  ACCESS_TOKEN_TTL_DEFAULT,
  ACCESS_TOKEN_TTL_RANGE,
  CLIENT_NAME_RANGE,
  MAX_MARKUP_PERCENT,
  MAX_REDIRECT_URIS,
  REFRESH_TOKEN_TTL_DEFAULT,
  REFRESH_TOKEN_TTL_RANGE,
  redirectUriProblem,
} from '@switchyard/shared-dto';
import type { OAuthClientCreateRequest, OAuthScope } from '@switchyard/shared-dto';

/** The create form as typed. */
export interface AppFormValues {
  clientName: string;
  /** One redirect URI per line. */
  redirectUris: string;
  requestedScopes: OAuthScope[];
  confidential: boolean;
  accessTokenTtlSeconds: string;
  refreshTokenTtlSeconds: string;
}

export const APP_FORM_FIELDS = [
  'clientName',
  'redirectUris',
  'requestedScopes',
  'accessTokenTtlSeconds',
  'refreshTokenTtlSeconds',
] as const;
export type AppFormField = (typeof APP_FORM_FIELDS)[number];

export const EMPTY_APP_FORM: AppFormValues = {
  clientName: '',
  redirectUris: '',
  requestedScopes: ['api:access'],
  confidential: false,
  accessTokenTtlSeconds: String(ACCESS_TOKEN_TTL_DEFAULT),
  refreshTokenTtlSeconds: String(REFRESH_TOKEN_TTL_DEFAULT),
};

export function parseRedirectUris(text: string): string[] {
  return [
    ...new Set(
      text
        .split('\n')
        .map((line) => line.trim())
        .filter(Boolean),
    ),
  ];
}

function parseTtl(text: string, [min, max]: readonly [number, number]): number | string {
  const trimmed = text.trim();
  if (!/^\d+$/.test(trimmed)) return `Enter a whole number of seconds from ${min} to ${max}.`;
  const value = Number(trimmed);
  return value < min || value > max ? `Must be from ${min} to ${max} seconds.` : value;
}

export type AppFormCheck =
  { ok: true; request: OAuthClientCreateRequest } | { ok: false; errors: Partial<Record<AppFormField, string[]>> };

/** The same rules the API applies (shared-dto's redirectUriProblem and ranges), checked before sending. */
export function checkAppForm(values: AppFormValues): AppFormCheck {
  const errors: Partial<Record<AppFormField, string[]>> = {};

  const clientName = values.clientName.trim();
  const [nameMin, nameMax] = CLIENT_NAME_RANGE;
  if (clientName.length < nameMin || clientName.length > nameMax) {
    errors.clientName = [`The name must be ${nameMin} to ${nameMax} characters.`];
  }

  const redirectUris = parseRedirectUris(values.redirectUris);
  if (redirectUris.length === 0) {
    errors.redirectUris = ['Enter at least one redirect URI.'];
  } else if (redirectUris.length > MAX_REDIRECT_URIS) {
    errors.redirectUris = [`Enter at most ${MAX_REDIRECT_URIS} redirect URIs.`];
  } else {
    const problems = redirectUris.flatMap((uri) => {
      const problem = redirectUriProblem(uri);
      return problem ? [`${uri} ${problem}.`] : [];
    });
    if (problems.length > 0) errors.redirectUris = problems;
  }

  if (values.requestedScopes.length === 0) errors.requestedScopes = ['Choose at least one scope.'];

  const accessTtl = parseTtl(values.accessTokenTtlSeconds, ACCESS_TOKEN_TTL_RANGE);
  if (typeof accessTtl === 'string') errors.accessTokenTtlSeconds = [accessTtl];
  const refreshTtl = parseTtl(values.refreshTokenTtlSeconds, REFRESH_TOKEN_TTL_RANGE);
  if (typeof refreshTtl === 'string') errors.refreshTokenTtlSeconds = [refreshTtl];

  if (Object.keys(errors).length > 0 || typeof accessTtl === 'string' || typeof refreshTtl === 'string') {
    return { ok: false, errors };
  }
  return {
    ok: true,
    request: {
      clientName,
      redirectUris,
      requestedScopes: values.requestedScopes,
      generateSecret: values.confidential,
      accessTokenTtlSeconds: accessTtl,
      refreshTokenTtlSeconds: refreshTtl,
    },
  };
}

/** A whole percent from 0 to 300, or the message that says why not (the API checks the same). */
export function parseMarkup(text: string): number | string {
  const trimmed = text.trim();
  if (!/^\d+$/.test(trimmed)) return `Enter a whole percent from 0 to ${MAX_MARKUP_PERCENT}.`;
  const value = Number(trimmed);
  return value > MAX_MARKUP_PERCENT ? `At most ${MAX_MARKUP_PERCENT}%.` : value;
}
