import type { AnalyticsGroupBy } from '@switchyard/shared-dto';

import type { DateRange } from '../lib/date-range';

export const usageKeys = {
  all: ['usage'] as const,
  activity: (limit: number) => [...usageKeys.all, 'activity', limit] as const,
  analytics: (range: DateRange, groupBy: AnalyticsGroupBy) =>
    [...usageKeys.all, 'analytics', range.from, range.to, groupBy] as const,
};
