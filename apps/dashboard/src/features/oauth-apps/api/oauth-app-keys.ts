export const oauthAppKeys = {
  all: ['oauth-apps'] as const,
  list: () => [...oauthAppKeys.all, 'list'] as const,
  usage: (clientId: string) => [...oauthAppKeys.all, 'usage', clientId] as const,
  sponsor: (clientId: string) => [...oauthAppKeys.all, 'sponsor', clientId] as const,
};
