import {
  infiniteQueryOptions,
  keepPreviousData,
  queryOptions,
  useInfiniteQuery,
  useMutation,
  useQuery,
  useQueryClient,
} from '@tanstack/react-query';
import type {
  AccountStatus,
  AdminMoneyQuery,
  AdminMoneyResponse,
  AdminUsageGroupBy,
  AdminUsageQuery,
  AdminUsageResponse,
  AdminUser,
  AdminUserPage,
  AdminUserQuery,
  AuditPage,
  AuditQuery,
  BalanceAdjustmentRequest,
  BalanceAdjustmentResponse,
} from '@switchyard/shared-dto';

import { http } from '../../../lib/http';
import { queryString } from '../../../lib/query-string';

const PAGE = 25;

export const consoleKeys = {
  all: ['admin-console'] as const,
  users: (q: string, status: AccountStatus | '') => [...consoleKeys.all, 'users', q, status] as const,
  usage: (query: AdminUsageQuery) => [...consoleKeys.all, 'usage', query] as const,
  audit: (userId: string | null) => [...consoleKeys.all, 'audit', userId] as const,
  money: (days: number) => [...consoleKeys.all, 'money', days] as const,
};

export const adminUsersQuery = (q: string, status: AccountStatus | '') =>
  infiniteQueryOptions({
    queryKey: consoleKeys.users(q, status),
    queryFn: ({ pageParam, signal }) =>
      http.get<AdminUserPage>(
        `/api/v1/admin/users${queryString<AdminUserQuery>({ q: q || undefined, status: status || undefined, limit: PAGE, cursor: pageParam ?? undefined })}`,
        { signal },
      ),
    initialPageParam: null as string | null,
    getNextPageParam: (page) => page.nextCursor,
    placeholderData: keepPreviousData,
  });

export function useAdminUsers(q: string, status: AccountStatus | '') {
  return useInfiniteQuery(adminUsersQuery(q, status));
}

export function useAdminUsage(groupBy: AdminUsageGroupBy, from: string, to: string) {
  return useQuery(adminUsageQuery({ groupBy, from: from || undefined, to: to || undefined }));
}

export const adminUsageQuery = (query: AdminUsageQuery) =>
  queryOptions({
    queryKey: consoleKeys.usage(query),
    queryFn: ({ signal }) =>
      http.get<AdminUsageResponse>(`/api/v1/admin/usage${queryString<AdminUsageQuery>(query)}`, { signal }),
    placeholderData: keepPreviousData,
  });

/** The operator's fees on app markups and losses, per UTC day (docs/operations.md). */
export const adminMoneyQuery = (days: number) =>
  queryOptions({
    queryKey: consoleKeys.money(days),
    queryFn: ({ signal }) =>
      http.get<AdminMoneyResponse>(`/api/v1/admin/money${queryString<AdminMoneyQuery>({ days })}`, { signal }),
    placeholderData: keepPreviousData,
  });

export function useAdminMoney(days: number) {
  return useQuery(adminMoneyQuery(days));
}

export const auditLogQuery = (userId: string | null) =>
  infiniteQueryOptions({
    queryKey: consoleKeys.audit(userId),
    queryFn: ({ pageParam, signal }) =>
      http.get<AuditPage>(
        `/api/v1/admin/audit${queryString<AuditQuery>({ userId: userId ?? undefined, limit: PAGE, cursor: pageParam ?? undefined })}`,
        { signal },
      ),
    initialPageParam: null as string | null,
    getNextPageParam: (page) => page.nextCursor,
  });

export function useAuditLog(userId: string | null) {
  return useInfiniteQuery(auditLogQuery(userId));
}

/** After an action: the lists, the figures and the audit log all change. */
function useRefreshConsole() {
  const queryClient = useQueryClient();
  return () => queryClient.invalidateQueries({ queryKey: consoleKeys.all });
}

export function useAdjustBalance(userId: string) {
  const refresh = useRefreshConsole();
  return useMutation({
    mutationFn: (body: BalanceAdjustmentRequest) =>
      http.post<BalanceAdjustmentResponse>(`/api/v1/admin/users/${encodeURIComponent(userId)}/adjustments`, body),
    onSuccess: () => refresh(),
  });
}

export function useSetDisabled(userId: string) {
  const refresh = useRefreshConsole();
  return useMutation({
    mutationFn: ({ disabled, reason }: { disabled: boolean; reason: string }) =>
      http.post<AdminUser>(`/api/v1/admin/users/${encodeURIComponent(userId)}/${disabled ? 'disable' : 'enable'}`, {
        reason,
      }),
    onSuccess: () => refresh(),
  });
}
