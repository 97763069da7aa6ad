export const billingKeys = {
  all: ['billing'] as const,
  summary: () => [...billingKeys.all, 'summary'] as const,
  ledger: () => [...billingKeys.all, 'ledger'] as const,
};
