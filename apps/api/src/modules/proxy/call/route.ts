import type { RouteMethod } from '../catalog/actions';
import type { PrefixKind } from '../credentials/caller';

export type BodyKind = 'none' | 'json' | 'multipart';

/** One (method, path) pair a face serves (docs/decisions.md#the-allowlist). */
export interface GatewayRoute {
  method: 'GET' | 'POST';
  /** Segments after the prefix; `{id}` is a parameter, and so is `{model}` before a `:action` suffix. */
  template: string;
  /** What the route does: a catalog method the model must list (billing follows it), or one of the gateway's own. */
  action: RouteMethod;
  /** Its name in usage records, when it is not the action (`messages` on Anthropic's face). */
  name?: string;
  body: BodyKind;
  summary: string;
  /** The face that serves it (faces/<face>/). */
  face: string;
  /** The prefixes it is served under, when not its face's (a template of its own per prefix). */
  prefixes?: GatewayPrefix[];
}

/** A path prefix the gateway answers under, and which credentials it takes there. */
export interface GatewayPrefix {
  prefix: string;
  kind: PrefixKind;
  /** Only paths under it are the gateway's, not the prefix alone (`/v1beta/models`: Google's list is not served). */
  under?: true;
}

/** The dashboard's own gateway: the signed-in session (cookie) calls through the user's dashboard key. */
export const DASHBOARD_GATEWAY_PREFIX = '/dashboard/v1';

/** `/v1` and its aliases (docs/decisions.md#credentials-per-prefix), shared by the faces that live there. */
export const V1_PREFIXES: GatewayPrefix[] = [
  { prefix: '/v1', kind: 'shared' },
  { prefix: '/apikey/v1', kind: 'apikey' },
  { prefix: '/oauth2/v1', kind: 'oauth' },
  { prefix: DASHBOARD_GATEWAY_PREFIX, kind: 'dashboard' },
];
