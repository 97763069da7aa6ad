import type { IncomingHttpHeaders } from 'node:http';
import type { GatewayRoute, RouteMethod } from '../allowlist';
import type { Estimate } from '../billing/budget-estimate';
import type { Metered } from '../billing/pricing';
import type { CatalogModel } from '../catalog/catalog.types';
import type { Caller } from '../credentials/caller';
import type { Delivered } from '../metering/delivered';
import type { FeatureUse } from '../policy/feature-use';
import type { PolicyVerdict } from '../policy/request-policy';
import type { ParsedMultipart } from '../request-body';
import type { Cancel } from '../upstream/cancel';
import type { Reservation } from '../../usage';

/**
 * Everything one gateway call knows, filled in as it goes through the pipeline (pipeline/gateway-pipeline.ts):
 * what was asked (route, caller, body), what it may cost (estimate, reservation, output bound), what the provider
 * did (accepted, usage, what was relayed) and what it was charged.
 */
export interface Call {
  /** The server's own id of the call (random): the key of its reservation, ledger debit and usage record. */
  callId: string;
  /** The caller's X-Request-Id (or one made for it): for correlation only, never a key. */
  requestId: string;
  route: GatewayRoute;
  /** What the caller called, for its usage record: `messages` for a Messages call served as a chat completion. */
  calledAs: RouteMethod;
  params: Record<string, string>;
  caller: Caller;
  model: CatalogModel;
  /** The caller's request headers, of which only the allowlisted ones go upstream (upstream/forwarded-headers.ts). */
  requestHeaders: IncomingHttpHeaders;
  json: Record<string, unknown> | null;
  raw: Buffer | null;
  form: ParsedMultipart | null;
  stream: boolean;
  /** Whether the caller asked for the usage chunk (the gateway always asks the upstream for it). */
  callerWantsUsage: boolean;
  signal: Cancel;
  startedAt: Date;
  metered: Metered;
  /** The provider's usage counts as reported so far, merged event by event (metering/token-usage.ts, mergeUsage). */
  reportedUsage: Record<string, unknown>;
  usageKnown: boolean;
  /** The usage is the provider's last word on the call (else it is partial: billed with what was relayed after it). */
  usageFinal: boolean;
  /** The provider accepted the call (answered 2xx): from then on, at least the input estimate is charged. */
  accepted: boolean;
  /** What a stream relayed (metered only if the call ends without the provider's usage). */
  delivered: Delivered;
  /** The call's worst case and input estimate (null for calls that cost nothing). */
  estimate: Estimate | null;
  reservation: Reservation | null;
  /** The output bound the gateway writes into the request, field by field (docs/budgets.md). */
  outputBound: Record<string, number> | null;
  /** Whether the caller's body already had one of those fields (else the bound is only put in front of it). */
  outputBoundReplaces: boolean;
  /** What the call was charged, when it was settled before its answer went out (a charge above its hold). */
  chargedMicros: number | null;
  /** When the answer's first byte went out (epoch ms): its status line, or a stream's first frame. */
  firstByteAt: number | null;
  /** What the request policy found (policy/request-policy.ts): input bounds and priced features to add. */
  policy: PolicyVerdict | null;
  /** The priced provider-side features the call used (searches), billed on top of its tokens. */
  featureUse: FeatureUse;
}
