// The API key the Models and Playground pages call the gateway with. The gateway takes only bearer credentials,
// never the dashboard's session cookie, so the user picks a key once: one created for the purpose with a click,
// or one of theirs pasted in. It is kept in sessionStorage: it survives a reload but not closing the tab, other
// tabs and sites do not see it, and it never goes to localStorage (it is a secret). It is stored with the user's
// id and ignored for anyone else, and signing out forgets it, so the next person in the same tab never gets it.
import { useCallback, useSyncExternalStore } from 'react';

export interface GatewayKey {
  key: string;
  /** Whose key it is: the signed-in user's id when it was chosen. */
  userId: string;
  /** The key's id when the dashboard created it (so it can revoke it); null for a pasted key. */
  id: string | null;
  name: string;
}

const STORAGE_KEY = 'switchyard.gatewayKey';
const CHANGE_EVENT = 'switchyard:gateway-key';

function read(): string | null {
  try {
    return window.sessionStorage.getItem(STORAGE_KEY);
  } catch {
    return null;
  }
}

function parse(raw: string | null): GatewayKey | null {
  if (!raw) return null;
  try {
    const value = JSON.parse(raw) as Partial<GatewayKey>;
    if (typeof value.key !== 'string' || value.key === '' || typeof value.userId !== 'string') return null;
    return {
      key: value.key,
      userId: value.userId,
      id: typeof value.id === 'string' ? value.id : null,
      name: typeof value.name === 'string' ? value.name : 'Your key',
    };
  } catch {
    return null;
  }
}

function subscribe(onChange: () => void): () => void {
  window.addEventListener(CHANGE_EVENT, onChange);
  window.addEventListener('storage', onChange);
  return () => {
    window.removeEventListener(CHANGE_EVENT, onChange);
    window.removeEventListener('storage', onChange);
  };
}

export function saveGatewayKey(value: GatewayKey | null): void {
  try {
    if (value) window.sessionStorage.setItem(STORAGE_KEY, JSON.stringify(value));
    else window.sessionStorage.removeItem(STORAGE_KEY);
  } catch {
    // Storage refused (private mode quotas): the key then lasts only until the next reload.
  }
  window.dispatchEvent(new Event(CHANGE_EVENT));
}

/** Forgets the stored key (at sign-out). */
export function forgetGatewayKey(): void {
  saveGatewayKey(null);
}

/** The signed-in user's stored key (null when none) and a setter; every component using it follows changes. */
export function useGatewayKey(userId: string): [GatewayKey | null, (value: GatewayKey | null) => void] {
  // The raw string is the snapshot: stable between renders until it changes.
  const raw = useSyncExternalStore(subscribe, read, () => null);
  const set = useCallback((value: GatewayKey | null) => saveGatewayKey(value), []);
  const stored = parse(raw);
  return [stored && stored.userId === userId ? stored : null, set];
}
