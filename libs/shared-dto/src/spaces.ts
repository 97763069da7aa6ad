/** Spaces (docs/spaces.md#the-api and #decisions): handles, prompts and the models a generation may use. */

/** docs/spaces.md#decisions, handle form: 3-40 characters, lowercase letters, digits, '_' and '-', not at either end. */
export const SPACE_HANDLE_PATTERN = /^[a-z0-9][a-z0-9_-]{1,38}[a-z0-9]$/;
export const SPACE_HANDLE_RANGE = [3, 40] as const;
/**
 * "--" as the third and fourth characters: `xn--` is punycode, which browsers show in another script (a
 * homograph of a well-known name, should handles ever become host names), and IDNA reserves the other `??--`
 * prefixes for the same use.
 */
export const SPACE_HANDLE_HYPHENS = /^..--/;
export const SPACE_HANDLE_HYPHENS_PROBLEM = 'may not have "--" as its third and fourth characters (xn-- is punycode)';

/**
 * Words no user may take as a handle: they name parts of Switchyard (paths, hosts, roles) or could pass for it
 * on a public profile. Slugs of apps avoid the words that name routes beside them.
 */
export const SPACE_RESERVED_HANDLES: readonly string[] = [
  'about',
  'account',
  'admin',
  'administrator',
  'api',
  'apikey',
  'app',
  'apps',
  'assets',
  'auth',
  'billing',
  'blog',
  'dashboard',
  'docs',
  'generate',
  'handle',
  'help',
  'home',
  'login',
  'logout',
  'me',
  'mail',
  'models',
  'new',
  'null',
  'oauth',
  'oauth2',
  'official',
  'openapi',
  'playground',
  'register',
  'root',
  'security',
  'settings',
  'signin',
  'signup',
  'spaces',
  'static',
  'status',
  'support',
  'switchyard',
  'system',
  'undefined',
  'usage',
  'user',
  'users',
  'v1',
  'www',
];

export const SPACE_GENERATE_PROMPT_RANGE = [10, 2000] as const;
export const SPACE_EDIT_PROMPT_RANGE = [5, 2000] as const;
/** At most this many models per generation; they are tried in order until one writes a page. */
export const SPACE_MAX_MODELS = 5;
/** The largest page Switchyard hosts (UTF-8 bytes). */
export const SPACE_PAGE_MAX_BYTES = 512 * 1024;
/** Where hosted apps live on SPACES_ORIGIN: `/s/{handle}/{slug}`. */
export const SPACE_HOSTING_PREFIX = '/s';
/**
 * The owner's preview on SPACES_ORIGIN: a page that shows the HTML its parent (the dashboard) posts to it, under
 * the same headers as a hosted app. One path segment, so it never matches `/s/{handle}/{slug}`.
 */
export const SPACE_PREVIEW_PATH = '/s/_preview';
/** The messages between the dashboard and the preview page. */
export const SPACE_PREVIEW_READY = 'switchyard-preview-ready';
export const SPACE_PREVIEW_PAGE = 'switchyard-preview-page';
/**
 * What a hosted page may do (docs/spaces.md): run its own scripts, nothing else. No allow-same-origin (an opaque
 * origin: no cookies, no storage), no allow-popups, no allow-top-navigation, no allow-forms, no allow-modals.
 */
export const SPACE_SANDBOX = 'allow-scripts';
/**
 * What a published app may do on its own origin: its scripts, on its real origin (its own storage, where the kit
 * keeps the visitor's tokens), and popups (the sign-in and budget windows, which are the dashboard's pages and so
 * leave the sandbox). No forms, no dialogs, no top navigation when framed, no downloads.
 */
export const SPACE_APP_SANDBOX = 'allow-scripts allow-same-origin allow-popups allow-popups-to-escape-sandbox';

/**
 * Each published app has an origin of its own: `{handle}--{slug}.` in front of SPACES_ORIGIN's host
 * (docs/spaces.md#an-origin-per-app). Slugs never hold `--`, so the last `--` of the label splits it.
 */
export const SPACE_ORIGIN_SEPARATOR = '--';
/** A DNS label's limit: an app whose `{handle}--{slug}` is longer cannot be published under that handle. */
export const SPACE_ORIGIN_LABEL_MAX = 63;
/** What a slug looks like (slugFromPrompt): lowercase words joined by single hyphens. */
export const SPACE_SLUG_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
/** The monthly cap (currency units) a visitor's consent to a space app starts with; the visitor may change it. */
export const SPACE_VISITOR_MONTHLY_CAP = 1;
/** Where an app's page loads the kit from, on its own origin (the only script it may load). */
export const SPACE_SDK_PATH = '/sdk/v1/switchyard.js';

/** The first label of an app's host name: `{handle}--{slug}`. */
export function spaceOriginLabel(handle: string, slug: string): string {
  return `${handle}${SPACE_ORIGIN_SEPARATOR}${slug}`;
}

/** The handle and slug a host label names, or null when it names none (checked, lowercase only). */
export function parseSpaceOriginLabel(label: string): { handle: string; slug: string } | null {
  if (label.length > SPACE_ORIGIN_LABEL_MAX) return null;
  const at = label.lastIndexOf(SPACE_ORIGIN_SEPARATOR);
  if (at < 0) return null;
  const handle = label.slice(0, at);
  const slug = label.slice(at + SPACE_ORIGIN_SEPARATOR.length);
  if (!SPACE_HANDLE_PATTERN.test(handle) || !SPACE_SLUG_PATTERN.test(slug)) return null;
  return { handle, slug };
}

/** Why a handle cannot be claimed as typed, or null when its form is fine (availability is the server's call). */
export function spaceHandleProblem(handle: string): string | null {
  if (handle.length < SPACE_HANDLE_RANGE[0] || handle.length > SPACE_HANDLE_RANGE[1])
    return `must be ${SPACE_HANDLE_RANGE[0]}-${SPACE_HANDLE_RANGE[1]} characters`;
  if (!SPACE_HANDLE_PATTERN.test(handle))
    return 'may hold lowercase letters, digits, "_" and "-", and must start and end with a letter or digit';
  if (SPACE_HANDLE_HYPHENS.test(handle)) return SPACE_HANDLE_HYPHENS_PROBLEM;
  if (SPACE_RESERVED_HANDLES.includes(handle)) return 'is a reserved word';
  return null;
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
  /** The app's OAuth client (its visitors sign in to it), registered when it was first published; null before. */
  clientId: string | null;
  /** The app this one was remixed from and its creator (current handle; null when the account is gone). */
  remixOf: SpaceRemixCredit | null;
}

/** Credit for a remix: the original app as it was when it was remixed. */
export interface SpaceRemixCredit {
  handle: string | null;
  slug: string;
  title: string;
  /** The original's address while it is still published, else null. */
  url: string | null;
}

export interface SpaceAppVersionResponse {
  version: number;
  /** `remix`: the first version of a remix, the original's page. */
  kind: 'generate' | 'edit' | 'remix';
  prompt: string;
  model: string;
  createdAt: string;
  current: boolean;
}

/** The owner's view of one app: the page itself (for the sandboxed preview) and its versions, newest first. */
export interface SpaceAppDetailResponse extends SpaceAppResponse {
  html: string | null;
  /** The preview page on SPACES_ORIGIN that shows `html` sandboxed (SPACE_PREVIEW_PATH there). */
  previewUrl: string;
  versions: SpaceAppVersionResponse[];
}

export interface SpaceProfileResponse {
  profile: { handle: string; displayName: string | null; bio: string | null; avatarUrl: string | null };
  apps: SpaceAppResponse[];
  isOwner: boolean;
}

/** PUT /api/v1/spaces/handle */
export interface SpaceHandleSetRequest {
  handle: string;
}

/** GET /api/v1/spaces/handle/check?handle= */
export interface SpaceHandleCheckQuery {
  handle: string;
}

/** POST /api/v1/spaces/generate */
export interface SpaceGenerateRequest {
  prompt: string;
  /** The app's title (1–100 characters); unset: the <title> of the page the model writes ("New app" until then). */
  title?: string;
  /** Model ids to try in order until one writes a page; unset: the catalog's first chat model. */
  models?: string[];
}

export const SPACE_TITLE_MAX_LENGTH = 100;

/** PUT /api/v1/spaces/{slug}/title: rename the app (its address stays); later pages keep this title. */
export interface SpaceRenameRequest {
  title: string;
}

/** PUT /api/v1/spaces/{slug}/edit */
export interface SpaceEditRequest {
  prompt: string;
}

/** PUT /api/v1/spaces/{slug}/publish */
export interface SpacePublishRequest {
  published: boolean;
}

/** POST /api/v1/spaces/remix: a published app (by its creator's handle and its slug) copied into the caller's space. */
export interface SpaceRemixRequest {
  handle: string;
  slug: string;
}
