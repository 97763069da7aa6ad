export const consentKeys = {
  all: ['consents'] as const,
  list: () => [...consentKeys.all, 'list'] as const,
  detail: (clientId: string) => [...consentKeys.all, 'detail', clientId] as const,
};
