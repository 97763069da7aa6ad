// The dashboard's pages opened by an app as a popup (docs/sdk.md#popups): the consent page, billing and one app's
// caps. When the user is done they tell the opener, by postMessage to the app's registered redirect origin only,
// and close.

/** What the SDK waits for; the same shape as libs/sdk's PopupMessage. */
export interface AppPopupMessage {
  source: 'switchyard';
  kind: 'authorize' | 'billing' | 'caps';
  url?: string;
  clientId?: string;
}

/** The app that opened billing or its caps: `?popup=1&client_id=…&redirect_uri=…`. */
export interface AppPopupTarget {
  clientId: string;
  redirectUri: string;
}

const STORAGE_KEY = 'switchyard:app-popup';

/**
 * The popup's app, from the address or (back from a checkout page, whose return address carries none) from this
 * tab's sessionStorage; null when this page is not an app's popup.
 */
export function readAppPopupTarget(searchParams: URLSearchParams): AppPopupTarget | null {
  if (searchParams.get('popup') === '1') {
    const clientId = searchParams.get('client_id');
    const redirectUri = searchParams.get('redirect_uri');
    if (!clientId || !redirectUri) return null;
    const target = { clientId, redirectUri };
    try {
      sessionStorage.setItem(STORAGE_KEY, JSON.stringify(target));
    } catch {
      // Storage blocked: the popup still works until it leaves for a checkout page.
    }
    return target;
  }
  if (!searchParams.has('session_id') || !hasOpener()) return null;
  try {
    return JSON.parse(sessionStorage.getItem(STORAGE_KEY) ?? 'null') as AppPopupTarget | null;
  } catch {
    return null;
  }
}

export function hasOpener(): boolean {
  return typeof window !== 'undefined' && window.opener !== null && window.opener !== window;
}

/** The origin a message may go to: an http(s) redirect URI's; null for a private-use scheme or nonsense. */
export function messageOrigin(redirectUri: string): string | null {
  try {
    const url = new URL(redirectUri);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.origin : null;
  } catch {
    return null;
  }
}

/**
 * Tells the opener (only if it is at `redirectUri`'s origin: the browser drops the message otherwise) and closes
 * this popup. Returns false when there is no opener or no web origin to tell; the page then stays open.
 */
export function notifyOpener(redirectUri: string, message: Omit<AppPopupMessage, 'source'>): boolean {
  const origin = messageOrigin(redirectUri);
  if (!origin || !hasOpener()) return false;
  (window.opener as Window).postMessage({ source: 'switchyard', ...message } satisfies AppPopupMessage, origin);
  try {
    sessionStorage.removeItem(STORAGE_KEY);
  } catch {
    // nothing kept
  }
  // A moment for the message to leave before the window goes.
  setTimeout(() => window.close(), 150);
  return true;
}
