export const keyKeys = {
  all: ['keys'] as const,
  list: () => [...keyKeys.all, 'list'] as const,
};
