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
