export const billingKeys = {
  all: ['billing'] as const,
  summary: () => [...billingKeys.all, 'summary'] as const,
  ledger: () => [...billingKeys.all, 'ledger'] as const,
  credits: () => [...billingKeys.ledger(), 'credits'] as const,
  dailySpend: () => [...billingKeys.ledger(), 'daily-spend'] as const,
};
