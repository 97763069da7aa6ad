// The authorization request's query (RFC 6749 section 4.1.1 plus PKCE, RFC 7636 section 4.3), as
// /oauth2/authorize hands it to the consent page and the page hands it back with the user's decision.
import { AUTHORIZATION_PARAM_NAMES } from '@switchyard/shared-dto';
import type { AuthorizationParams } from '@switchyard/shared-dto';

export type AuthorizationParamsRead = { ok: true; params: AuthorizationParams } | { ok: false; problem: string };

/**
 * The parameters present, unchanged. Others are left out: the API validates these exact names and refuses
 * unknown fields. A repeated parameter is refused here, as RFC 6749 section 3.1 requires.
 */
export function readAuthorizationParams(searchParams: URLSearchParams): AuthorizationParamsRead {
  const found: Partial<AuthorizationParams> = {};
  for (const name of AUTHORIZATION_PARAM_NAMES) {
    const values = searchParams.getAll(name);
    if (values.length > 1) return { ok: false, problem: `The link repeats the ${name} parameter.` };
    if (values.length === 1) found[name] = values[0];
  }
  const { client_id } = found;
  if (!client_id) return { ok: false, problem: 'The link does not say which app is asking (client_id is missing).' };
  return { ok: true, params: { ...found, client_id } };
}

/** A stable query string for the cache key and the request. */
export function toQueryString(params: AuthorizationParams): string {
  const search = new URLSearchParams();
  for (const name of AUTHORIZATION_PARAM_NAMES) {
    const value = params[name];
    if (value !== undefined) search.set(name, value);
  }
  return search.toString();
}
