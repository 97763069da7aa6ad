export const authorizeKeys = {
  all: ['authorize'] as const,
  request: (query: string) => [...authorizeKeys.all, 'request', query] as const,
};
