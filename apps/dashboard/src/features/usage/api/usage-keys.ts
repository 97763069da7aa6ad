import type { AnalyticsGroupBy } from '@switchyard/shared-dto';

import type { DateRange } from '../lib/date-range';
import type { RequestFilters } from '../lib/request-filters';

export const usageKeys = {
  all: ['usage'] as const,
  activity: (limit: number) => [...usageKeys.all, 'activity', limit] as const,
  requests: (filters: RequestFilters) => [...usageKeys.all, 'requests', filters] as const,
  analytics: (range: DateRange, groupBy: AnalyticsGroupBy) =>
    [...usageKeys.all, 'analytics', range.from, range.to, groupBy] as const,
};
