import { keepPreviousData, useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type {
  AccountStatus,
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
};

export function useAdminUsers(q: string, status: AccountStatus | '') {
  return useInfiniteQuery({
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
}

export function useAdminUsage(groupBy: AdminUsageGroupBy, from: string, to: string) {
  const query: AdminUsageQuery = { groupBy, from: from || undefined, to: to || undefined };
  return useQuery({
    queryKey: consoleKeys.usage(query),
    queryFn: ({ signal }) =>
      http.get<AdminUsageResponse>(`/api/v1/admin/usage${queryString<AdminUsageQuery>(query)}`, { signal }),
    placeholderData: keepPreviousData,
  });
}

export function useAuditLog(userId: string | null) {
  return useInfiniteQuery({
    queryKey: consoleKeys.audit(userId),
    queryFn: ({ pageParam, signal }) =>
      http.get<AuditPage>(
        `/api/v1/admin/audit${queryString<AuditQuery>({ userId: userId ?? undefined, limit: PAGE, cursor: pageParam ?? undefined })}`,
        { signal },
      ),
    initialPageParam: null as string | null,
    getNextPageParam: (page) => page.nextCursor,
  });
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
