// A tiny router on the History API: enough for a handful of flat routes, with no dependency.
import { useEffect, useMemo, useSyncExternalStore } from 'react';
import type { AnchorHTMLAttributes, MouseEvent } from 'react';

const NAVIGATE_EVENT = 'switchyard:navigate';

function subscribe(onChange: () => void): () => void {
  window.addEventListener('popstate', onChange);
  window.addEventListener(NAVIGATE_EVENT, onChange);
  return () => {
    window.removeEventListener('popstate', onChange);
    window.removeEventListener(NAVIGATE_EVENT, onChange);
  };
}

// A string snapshot keeps useSyncExternalStore stable between renders.
function getSnapshot(): string {
  return window.location.pathname + window.location.search;
}

export interface Location {
  pathname: string;
  search: string;
  searchParams: URLSearchParams;
}

export function useLocation(): Location {
  const href = useSyncExternalStore(subscribe, getSnapshot);
  return useMemo(() => {
    const url = new URL(href, window.location.origin);
    return { pathname: url.pathname, search: url.search, searchParams: url.searchParams };
  }, [href]);
}

/** Client-side navigation to a same-origin path. */
export function navigate(to: string, options: { replace?: boolean } = {}): void {
  const url = new URL(to, window.location.href);
  const target = url.pathname + url.search + url.hash;
  if (target === window.location.pathname + window.location.search + window.location.hash) return;
  if (options.replace) window.history.replaceState(null, '', target);
  else window.history.pushState(null, '', target);
  window.dispatchEvent(new Event(NAVIGATE_EVENT));
  if (!options.replace) window.scrollTo(0, 0);
}

type LinkProps = AnchorHTMLAttributes<HTMLAnchorElement> & { href: string };

/** A real <a href>: it works with middle click, "open in new tab" and without JS; plain clicks stay in the SPA. */
export function Link({ href, onClick, target, ...rest }: LinkProps) {
  const handleClick = (event: MouseEvent<HTMLAnchorElement>) => {
    onClick?.(event);
    if (
      event.defaultPrevented ||
      event.button !== 0 ||
      event.metaKey ||
      event.ctrlKey ||
      event.shiftKey ||
      event.altKey ||
      (target && target !== '_self')
    ) {
      return;
    }
    const url = new URL(href, window.location.href);
    if (url.origin !== window.location.origin) return;
    event.preventDefault();
    navigate(url.pathname + url.search + url.hash);
  };
  return <a href={href} target={target} onClick={handleClick} {...rest} />;
}

/** Replaces the current entry with `to` once rendered. */
export function Redirect({ to }: { to: string }) {
  useEffect(() => {
    navigate(to, { replace: true });
  }, [to]);
  return null;
}

/**
 * Where to go after signing in: `next` when it is a path on this origin, otherwise '/'.
 * Rejects protocol-relative ('//evil') and backslash tricks ('/\evil') that browsers treat as other hosts.
 */
export function safeNextPath(next: string | null): string {
  if (!next || !next.startsWith('/') || next.startsWith('//') || next.startsWith('/\\')) return '/';
  try {
    const url = new URL(next, window.location.origin);
    if (url.origin !== window.location.origin) return '/';
    return url.pathname + url.search + url.hash;
  } catch {
    return '/';
  }
}

/** Paths the server answers itself (OAuth authorize, API): they need a full page load, not the SPA router. */
export function isServerPath(path: string): boolean {
  return /^\/(oauth2|api)(\/|$|\?)/.test(path);
}

/** Goes to `path`, with a full page load when the server must answer it. */
export function goTo(path: string, options: { replace?: boolean } = {}): void {
  if (isServerPath(path)) {
    if (options.replace) window.location.replace(path);
    else window.location.assign(path);
    return;
  }
  navigate(path, options);
}

export function useDocumentTitle(title: string): void {
  useEffect(() => {
    document.title = title ? `${title} · Switchyard` : 'Switchyard';
  }, [title]);
}
