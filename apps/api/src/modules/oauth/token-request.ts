import { OAuthErrorCode, OAuthException } from './oauth.exception';

/**
 * One parameter of a token, revoke or introspection request: the RFC 6749 form name (`grant_type`) or the
 * interface's JSON name (`grantType`). Repeated parameters are refused (RFC 6749 section 3.2).
 */
export function param(body: Record<string, unknown> | undefined, snake: string): string | undefined {
  const camel = snake.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase());
  const value = body?.[snake] ?? body?.[camel];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string')
    throw new OAuthException(OAuthErrorCode.INVALID_REQUEST, `${snake} must be given once, as a string`);
  return value;
}

export interface PresentedClient {
  clientId: string | undefined;
  secret: string | undefined;
  /** Whether HTTP Basic was used (client_secret_basic): a failure then answers WWW-Authenticate: Basic. */
  basic: boolean;
}

/** Client credentials as presented: HTTP Basic (RFC 6749 section 2.3.1, form-urlencoded parts) or the body. */
export function presentedClient(
  body: Record<string, unknown> | undefined,
  authorization: string | undefined,
): PresentedClient {
  const bodyId = param(body, 'client_id');
  const bodySecret = param(body, 'client_secret');
  const basic = authorization ? /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(authorization) : null;
  if (!basic) return { clientId: bodyId, secret: bodySecret, basic: false };
  if (bodySecret !== undefined)
    throw new OAuthException(
      OAuthErrorCode.INVALID_REQUEST,
      'Use one client authentication method, not both Basic and client_secret',
    );
  const decoded = Buffer.from(basic[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0)
    throw new OAuthException(OAuthErrorCode.INVALID_CLIENT, 'Malformed Basic credentials', {
      'WWW-Authenticate': 'Basic realm="oauth2"',
    });
  const decode = (part: string) => {
    try {
      return decodeURIComponent(part.replace(/\+/g, ' '));
    } catch {
      throw new OAuthException(OAuthErrorCode.INVALID_CLIENT, 'Malformed Basic credentials', {
        'WWW-Authenticate': 'Basic realm="oauth2"',
      });
    }
  };
  const clientId = decode(decoded.slice(0, colon));
  if (bodyId !== undefined && bodyId !== clientId)
    throw new OAuthException(OAuthErrorCode.INVALID_CLIENT, 'client_id differs from the Basic credentials', {
      'WWW-Authenticate': 'Basic realm="oauth2"',
    });
  return { clientId, secret: decode(decoded.slice(colon + 1)), basic: true };
}
