/** Where tokens live: this page's memory, the tab's sessionStorage, the origin's localStorage, or your own. */
export interface StorageLike {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}

export type StorageOption = 'memory' | 'session' | 'local' | StorageLike;

export function memoryStorage(): StorageLike {
  const items = new Map<string, string>();
  return {
    getItem: (key) => items.get(key) ?? null,
    setItem: (key, value) => void items.set(key, value),
    removeItem: (key) => void items.delete(key),
  };
}

function webStorage(name: 'sessionStorage' | 'localStorage'): StorageLike | null {
  try {
    const storage = (globalThis as unknown as Record<string, StorageLike | undefined>)[name];
    return storage ?? null;
  } catch {
    // Reading it throws where storage is blocked (a sandboxed frame, some privacy settings).
    return null;
  }
}

/** The storage asked for; memory where the browser's is missing (Node) or blocked. */
export function resolveStorage(option: StorageOption | undefined): StorageLike {
  if (option && typeof option === 'object') return option;
  const chosen = option ?? 'session';
  if (chosen === 'memory') return memoryStorage();
  return webStorage(chosen === 'local' ? 'localStorage' : 'sessionStorage') ?? memoryStorage();
}

/** The tab's sessionStorage for what must survive a redirect, else `fallback`. */
export function pendingStorage(fallback: StorageLike): StorageLike {
  return webStorage('sessionStorage') ?? fallback;
}
