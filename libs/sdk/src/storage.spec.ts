import { memoryStorage, pendingStorage, resolveStorage, type StorageLike } from './storage.js';

describe('token storage', () => {
  afterEach(() => {
    delete (globalThis as Record<string, unknown>).sessionStorage;
    delete (globalThis as Record<string, unknown>).localStorage;
  });

  it('keeps items in memory, apart for each instance', () => {
    const [one, two] = [memoryStorage(), memoryStorage()];
    one.setItem('k', 'v');
    expect([one.getItem('k'), two.getItem('k')]).toEqual(['v', null]);
    one.removeItem('k');
    expect(one.getItem('k')).toBeNull();
  });

  it('uses the browser’s session or local storage when asked, and memory where there is none (Node)', () => {
    expect(resolveStorage('session').getItem('x')).toBeNull();
    const session = memoryStorage();
    const local = memoryStorage();
    Object.assign(globalThis, { sessionStorage: session, localStorage: local });
    expect(resolveStorage('session')).toBe(session);
    expect(resolveStorage(undefined)).toBe(session);
    expect(resolveStorage('local')).toBe(local);
    expect(resolveStorage('memory')).not.toBe(session);
    expect(pendingStorage(local)).toBe(session);
  });

  it('takes a storage of your own as it is', () => {
    const own: StorageLike = memoryStorage();
    expect(resolveStorage(own)).toBe(own);
  });

  it('falls back to memory where reading the browser’s storage throws (blocked)', () => {
    Object.defineProperty(globalThis, 'localStorage', {
      configurable: true,
      get() {
        throw new Error('SecurityError');
      },
    });
    const storage = resolveStorage('local');
    storage.setItem('a', 'b');
    expect(storage.getItem('a')).toBe('b');
  });
});
