import type { IncomingMessage } from 'node:http';

/** Who is calling the gateway, as a credential strategy resolved it. */
/** Which credentials a gateway prefix takes (docs/decisions.md#credentials-per-prefix). */
export type PrefixKind = 'shared' | 'apikey' | 'oauth' | 'dashboard';

export interface Caller {
  /** `internal`: Switchyard calling for a user, server-side and in-process (spaces generation: GatewayService.callInProcess). */
  kind: 'api_key' | 'oauth' | 'internal';
  userId: string;
  apiKeyId: string | null;
  oauthClientId: string | null;
  /** The key's or the app's name, for activity lists. */
  credentialName: string;
  /** OAuth scopes; API keys carry none and may call every AI endpoint. */
  scopes: string[] | null;
  /** Requests per minute for this credential (null: GATEWAY_RPM), counted per `rateLimitSubject`. */
  rateLimitRpm: number | null;
  rateLimitSubject: string;
  /**
   * An app's markup on this user's calls (docs/earnings.md): the rate the user agreed to, or the app's lower one.
   * Read once when the credential is resolved, so a change while a call runs never reprices it. 0 or absent: none.
   */
  markupPercent?: number;
}

/**
 * One way to present a credential on the gateway (the seam other modules plug into: API keys here, OAuth
 * access tokens from the OAuth module). `claims` says
 * whether a bearer token looks like this kind; `resolve` checks it and throws a GatewayException with the
 * kind's documented status when it is not good.
 */
export interface CredentialStrategy {
  readonly kind: Caller['kind'];
  /** The prefixes on which this kind is accepted (docs/decisions.md#credentials-per-prefix). */
  readonly prefixes: PrefixKind[];
  claims(token: string): boolean;
  resolve(token: string, req: IncomingMessage, prefix: PrefixKind): Promise<Caller>;
}
