/**
 * Shapes of the resources (docs/decisions.md#resource-shapes, README "The HTTP interface") that later modules fill in.
 * They are plain types so the dashboard can import them without any runtime cost.
 */
export const OAUTH_SCOPES = ['api:access', 'profile:read'] as const;
export type OAuthScope = (typeof OAUTH_SCOPES)[number];

export interface OAuthClientResponse {
  id: number;
  clientId: string;
  clientSecret?: string;
  clientName: string;
  clientType: 'PUBLIC' | 'CONFIDENTIAL';
  redirectUris: string[];
  scopes: OAuthScope[];
  accessTokenTtlSeconds: number;
  refreshTokenTtlSeconds: number;
  requirePkce: boolean;
  /** False only for a trusted app: its users are not asked (the opposite of `trusted`). */
  requireConsent: boolean;
  /** A first-party app that an admin marked trusted: it skips the consent page. */
  trusted: boolean;
  isActive: boolean;
  createdAt: string;
  updatedAt: string;
  authorizedUserCount: number;
  /** Gateway requests per minute for each user of this app; null: the server's default (GATEWAY_RPM). */
  requestsPerMinute: number | null;
}

export interface TokenResponse {
  access_token: string;
  refresh_token: string;
  expires_in: number;
  token_type: 'Bearer';
  scope: string;
}

export interface UsageSummaryResponse {
  totalCost: number;
  maxBudget: number;
  remainingBudget: number;
}

export const MODEL_TYPES = ['text', 'image', 'audio', 'embedding', 'video'] as const;
export type ModelType = (typeof MODEL_TYPES)[number];

export const MODEL_METHODS = [
  'chat_completions',
  'completions',
  'responses',
  'embeddings',
  'image_generation',
  'image_edit',
  'image_variation',
  'audio_speech',
  'audio_transcription',
  'video_generation',
] as const;
export type ModelMethod = (typeof MODEL_METHODS)[number];

export interface ModelPricing {
  inputPerMTok?: number;
  outputPerMTok?: number;
  perImage?: number;
  perSecond?: number;
  perMChars?: number;
}

export interface ModelEntry {
  id: string;
  object: 'model';
  owned_by: string;
  created?: number;
  type?: ModelType;
  methods?: ModelMethod[];
  capabilities?: string[];
  context_length?: number;
  max_output_tokens?: number;
  pricing?: ModelPricing;
}

export interface ModelListResponse {
  object: 'list';
  data: ModelEntry[];
}

export interface ApiKeyCreatedResponse {
  id: string;
  name: string;
  key: string;
  createdAt: string;
  status: 'Active' | 'Revoked';
}

/** Spend limits of one key, in currency units; null means none. Windows are UTC calendar day, week, month. */
export interface KeyLimits {
  total: number | null;
  daily: number | null;
  weekly: number | null;
  monthly: number | null;
  perRequest: number | null;
}

export interface ApiKeyResponse {
  id: string;
  name: string;
  token: string;
  createdAt: string;
  lastUsedAt: string | null;
  status: 'Active' | 'Revoked';
  limits: KeyLimits;
  /** Gateway requests per minute for this key; null: the server's default (GATEWAY_RPM). */
  requestsPerMinute: number | null;
}

/** One gateway call on the dashboard (the activity record of docs/decisions.md#rules-for-clients, with the money trace). */
export interface ActivityRecord {
  /** The call's own id (the server's): what its ledger entry references. */
  id: string;
  /** The X-Request-Id the call came with (or the one the gateway gave it), to quote when asking about it. */
  requestId: string;
  startTime: string;
  endTime: string;
  /** The key's or the app's name; 'Unknown' when none. */
  name: string;
  credentialType: 'api_key' | 'oauth' | 'unknown';
  model: string;
  method: string;
  stream: boolean;
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
  cost: number;
  status: string;
  httpStatus: number;
  errorCode: string | null;
  latencyMs: number;
  /** What happened to the money: reserved before the call, then settled (charged) or released, and why. */
  money: { reserved: number; charged: number; released: number; outcome: 'settled' | 'released' | 'open' | 'none'; reason: string | null };
}

export interface ActivityPage {
  items: ActivityRecord[];
  nextCursor: string | null;
}

export interface AnalyticsGroup {
  key: string;
  requests: number;
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
  cost: number;
}

export interface AnalyticsResponse {
  from: string;
  to: string;
  groupBy: 'day' | 'model' | 'key' | 'app';
  totals: Omit<AnalyticsGroup, 'key'>;
  groups: AnalyticsGroup[];
}

/**
 * What one app may spend of its user's budget (currency units; null means no cap below the budget): a total
 * cap, caps per UTC calendar day, week and month, and the most one call may cost. The same set as an API key's.
 */
export type ConsentLimits = KeyLimits;

/** An app the user authorized (docs/decisions.md#resource-shapes), with the caps the user set on it. */
export interface ConsentResponse {
  clientId: string;
  clientName: string;
  scopes: OAuthScope[];
  grantedAt: string;
  lastUsedAt: string | null;
  limits: ConsentLimits;
  /** What the app spent (settled, plus what its calls in flight hold) this UTC month. */
  spentThisMonth: number;
}

/** Card top-ups (docs/payments.md): currency units, at most two decimals (cents). */
export const PAYMENT_MIN_AMOUNT = 0.5;
export const PAYMENT_MAX_AMOUNT = 10_000;
export const PAYMENT_CURRENCY = 'usd';

export interface CheckoutSessionResponse {
  sessionId: string;
  checkoutUrl: string;
}

/**
 * verify-and-capture (docs/decisions.md#resource-shapes). Idempotent: once paid, every call answers the same, and
 * `amountAdded` is what this session added to the balance (once, whichever of redirect, retry or webhook came first).
 */
export interface PaymentVerifyResponse {
  status: 'paid' | 'unpaid' | 'expired';
  amountAdded: number;
  newBalance: number;
}

export interface GiftCardRedeemResponse {
  success: boolean;
  message: string;
  amountAdded: number;
  newBalance: number;
}

/** Gift cards an admin may issue at once, and the value of one (currency units). */
export const GIFT_CARD_MAX_COUNT = 500;
export const GIFT_CARD_MAX_AMOUNT = 10_000;

export interface GiftCardIssueRequest {
  amount: number;
  count: number;
  /** ISO 8601; unset: the cards never expire. */
  expiresAt?: string;
}

/** The codes, shown in this answer only: only their hashes are stored. */
export interface GiftCardIssueResponse {
  amount: number;
  expiresAt: string | null;
  cards: { id: string; code: string }[];
}

export const LEDGER_ENTRY_KINDS = ['signup_credit', 'payment', 'gift_card', 'admin_adjustment', 'usage', 'reversal'] as const;
export type LedgerEntryKind = (typeof LEDGER_ENTRY_KINDS)[number];

/** One money movement: credits positive, debits negative (currency units). */
export interface LedgerEntryResponse {
  id: string;
  createdAt: string;
  kind: LedgerEntryKind;
  amount: number;
  /** What moved it: a Checkout Session id, a gift card id, a gateway request id. */
  reference: string | null;
}

export interface LedgerPage {
  items: LedgerEntryResponse[];
  nextCursor: string | null;
}

export interface HandleCheckResponse {
  available: boolean;
  /** Why not, when it is not: someone holds (or once held) it, or it is a reserved word. */
  reason?: 'taken' | 'reserved';
}

/** PUT /api/v1/spaces/handle: the caller's handle and the address of their public profile. */
export interface SpaceHandleResponse {
  handle: string;
  profileUrl: string;
}

export type SpaceAppStatus = 'generating' | 'ready' | 'failed';

/** A space app (docs/decisions.md#resource-shapes), plus its version and, after a failed job, why it failed. */
export interface SpaceAppResponse {
  slug: string;
  title: string;
  /** The prompt the app was generated from (edits are in its versions). */
  prompt: string;
  models: string[];
  status: SpaceAppStatus;
  published: boolean;
  /** The stable public address of the hosted page (it answers only while the app is published). */
  url: string;
  createdAt: string;
  updatedAt: string;
  /**
   * Why the last generation or edit failed. With status `failed` the app has no page yet; with status `ready` an
   * edit failed and the previous page stays.
   */
  error?: string;
  /** The version being served (null until the first page is ready). */
  version: number | null;
  /** Whether the current version came from an edit that can be undone. */
  canUndo: boolean;
}

export interface SpaceAppVersionResponse {
  version: number;
  kind: 'generate' | 'edit';
  prompt: string;
  model: string;
  createdAt: string;
  current: boolean;
}

/** The owner's view of one app: the page itself (for the sandboxed preview) and its versions, newest first. */
export interface SpaceAppDetailResponse extends SpaceAppResponse {
  html: string | null;
  versions: SpaceAppVersionResponse[];
}

export interface SpaceProfileResponse {
  profile: { handle: string; displayName: string | null; bio: string | null; avatarUrl: string | null };
  apps: SpaceAppResponse[];
  isOwner: boolean;
}
