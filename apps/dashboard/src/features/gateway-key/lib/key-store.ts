// Which credential the Models and Playground pages call the gateway with. By default none is chosen here: the
// calls go on the signed-in session to /dashboard/v1, as the user's key named "Dashboard" (lib/gateway.ts). A user
// may paste one of their own keys instead, to see exactly what a program with that key sees. A pasted key is a
// full secret, so it is kept in this page's memory only, never in localStorage or sessionStorage: a reload or
// closing the tab forgets it, and so does signing out. It is kept with the user's id and ignored for anyone else.
import { useCallback, useSyncExternalStore } from 'react';
import { API_KEY_PATTERN } from '@switchyard/shared-dto';

export interface PastedKey {
  key: string;
  /** Whose key it is: the signed-in user's id when it was pasted. */
  userId: string;
}

let current: PastedKey | null = null;
const listeners = new Set<() => void>();

function subscribe(onChange: () => void): () => void {
  listeners.add(onChange);
  return () => listeners.delete(onChange);
}

export function savePastedKey(value: PastedKey | null): void {
  current = value;
  for (const listener of listeners) listener();
}

/** Forgets a pasted key (at sign-out). */
export function forgetGatewayKey(): void {
  savePastedKey(null);
}

/** The signed-in user's pasted key (null: the session is used) and a setter; every user of it follows changes. */
export function usePastedKey(userId: string): [PastedKey | null, (value: PastedKey | null) => void] {
  const stored = useSyncExternalStore(
    subscribe,
    () => current,
    () => null,
  );
  const set = useCallback((value: PastedKey | null) => savePastedKey(value), []);
  return [stored && stored.userId === userId ? stored : null, set];
}

/** Why a pasted string is not an API key, in words for people; null when it has the key's form. */
export function pastedKeyProblem(text: string): string | null {
  const key = text.trim();
  if (key === '') return 'Paste one of your API keys. It starts with sy- and is 51 characters long.';
  if (/^sys_/.test(key)) return 'That is a sign-in session, not an API key. Copy a key from the API keys page.';
  if (/^Bearer\s/i.test(key)) return 'Paste the key alone, without “Bearer”.';
  if (/\s/.test(key)) return 'An API key has no spaces or line breaks. Copy it again, all in one piece.';
  if (!API_KEY_PATTERN.test(key))
    return 'That does not look like an API key: a key starts with sy- followed by 48 letters and digits.';
  return null;
}
