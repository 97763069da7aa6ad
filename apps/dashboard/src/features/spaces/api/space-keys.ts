export const spaceKeys = {
  all: ['spaces'] as const,
  apps: () => [...spaceKeys.all, 'apps'] as const,
  app: (slug: string) => [...spaceKeys.apps(), slug] as const,
  handleCheck: (handle: string) => [...spaceKeys.all, 'handle-check', handle] as const,
  profile: (handle: string) => [...spaceKeys.all, 'profile', handle] as const,
};

/** How often a page that shows an app being written asks again. */
export const GENERATING_POLL_MS = 1_000;
