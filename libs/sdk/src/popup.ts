import { PopupError } from './errors.js';

/**
 * The little of a browser the SDK touches, typed here so that the SDK compiles without the DOM library (in Node,
 * and in a project that typechecks it as a Node program).
 */
export interface PopupWindow {
  closed: boolean;
  name: string;
  opener: PopupWindow | null;
  location: { href: string; origin: string; pathname: string; assign(url: string): void };
  close(): void;
  postMessage(message: unknown, targetOrigin: string): void;
}

export interface WindowMessage {
  data: unknown;
  origin: string;
  source: unknown;
}

interface BrowserWindow extends PopupWindow {
  open(url: string, name: string, features: string): PopupWindow | null;
  addEventListener(type: 'message', listener: (event: WindowMessage) => void): void;
  removeEventListener(type: 'message', listener: (event: WindowMessage) => void): void;
  screen: { width: number; height: number };
  history: { state: unknown; replaceState(state: unknown, unused: string, url: string): void };
}

/** This page's window, or undefined outside a browser. */
export function browser(): BrowserWindow | undefined {
  return (globalThis as { window?: BrowserWindow }).window;
}

function page(): BrowserWindow {
  const found = browser();
  if (!found) throw new PopupError('Popups need a browser');
  return found;
}

/** The name of the window the SDK opens; the redirect page knows by it that it runs in the sign-in popup. */
export const POPUP_NAME = 'switchyard-popup';

/**
 * What the pages in the popup tell the opener (docs/sdk.md#popups): the dashboard posts it only to a registered
 * redirect URI's origin, the app's own redirect page only to its own origin.
 */
export interface PopupMessage {
  source: 'switchyard';
  /** `authorize`: the authorization's answer (its redirect URL); `billing` / `caps`: the user is done there. */
  kind: 'authorize' | 'billing' | 'caps';
  url?: string;
  clientId?: string;
}

/** Opens the popup at once (a browser lets a click open one, not a later promise), blank until `url` is known. */
export function openPopup(url = 'about:blank'): PopupWindow {
  const window = page();
  const width = 520;
  const height = 720;
  const left = Math.max(0, (window.screen.width - width) / 2);
  const top = Math.max(0, (window.screen.height - height) / 2);
  const popup = window.open(url, POPUP_NAME, `popup,width=${width},height=${height},left=${left},top=${top}`);
  if (!popup) throw new PopupError('The browser blocked the popup: call this from a click', undefined, 'popup_blocked');
  return popup;
}

/**
 * Resolves with the first message from `popup` that `accept` takes (it checks the origin), or with what `poll`
 * finds (a same-origin popup read directly); rejects when the user closes the popup first.
 */
export function waitForPopup<T>(
  popup: PopupWindow,
  accept: (event: WindowMessage) => T | undefined,
  poll: () => T | undefined = () => undefined,
): Promise<T> {
  const window = page();
  return new Promise<T>((resolve, reject) => {
    let closedSeen = false;
    const finish = (value: T) => {
      window.removeEventListener('message', onMessage);
      clearInterval(timer);
      resolve(value);
    };
    const onMessage = (event: WindowMessage) => {
      if (event.source !== popup) return;
      const value = accept(event);
      if (value !== undefined) finish(value);
    };
    const timer = setInterval(() => {
      const found = poll();
      if (found !== undefined) return finish(found);
      if (!popup.closed) return;
      // A message posted just before the popup closed is still on its way: give it one more round.
      if (!closedSeen) return void (closedSeen = true);
      window.removeEventListener('message', onMessage);
      clearInterval(timer);
      reject(new PopupError('The popup was closed before it finished', undefined, 'popup_closed'));
    }, 250);
    window.addEventListener('message', onMessage);
  });
}

/** A message of the dashboard's popup pages, or undefined. */
export function popupMessage(data: unknown, kind: PopupMessage['kind']): PopupMessage | undefined {
  const message = data as PopupMessage | null;
  return message && typeof message === 'object' && message.source === 'switchyard' && message.kind === kind
    ? message
    : undefined;
}
