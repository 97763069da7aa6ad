import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type {
  AccountDeleteRequest,
  AccountUpdateRequest,
  NotificationSettings,
  PasswordChangeRequest,
  SignOutEverywhereRequest,
  SignedOutResponse,
  UserResponse,
} from '@switchyard/shared-dto';

import { http } from '../../../lib/http';

export function updateAccount(body: AccountUpdateRequest): Promise<UserResponse> {
  return http.patch<UserResponse>('/api/v1/auth/me', body);
}

export function changePassword(body: PasswordChangeRequest): Promise<SignedOutResponse> {
  return http.post<SignedOutResponse>('/api/v1/auth/password', body);
}

export function signOutEverywhere(body: SignOutEverywhereRequest): Promise<SignedOutResponse> {
  return http.post<SignedOutResponse>('/api/v1/auth/logout-everywhere', body);
}

/** "2 API keys and 1 app authorization revoked", or '' when none was. */
export function revokedWords({ revokedApiKeys, revokedAppAuthorizations }: SignedOutResponse): string {
  if (!revokedApiKeys && !revokedAppAuthorizations) return '';
  const keys = `${revokedApiKeys} API ${revokedApiKeys === 1 ? 'key' : 'keys'}`;
  const apps = `${revokedAppAuthorizations} app ${revokedAppAuthorizations === 1 ? 'authorization' : 'authorizations'}`;
  return `${keys} and ${apps} revoked.`;
}

export function deleteAccount(body: AccountDeleteRequest): Promise<null> {
  return http.post<null>('/api/v1/auth/delete-account', body);
}

/** `onSaved` gets the user as the server now has it (the route puts it in the auth feature's cache). */
export function useUpdateAccount(onSaved: (user: UserResponse) => void) {
  return useMutation({ mutationFn: updateAccount, onSuccess: onSaved });
}

export function useChangePassword() {
  // gcTime 0: the passwords sent are the mutation's variables; nothing keeps them once it is done.
  return useMutation({ mutationFn: changePassword, gcTime: 0 });
}

/** `onSignedOut` ends the dashboard's session (the route clears the cache and goes to sign-in). */
export function useSignOutEverywhere(onSignedOut: () => void) {
  return useMutation({ mutationFn: signOutEverywhere, onSuccess: onSignedOut });
}

export function useDeleteAccount(onDeleted: () => void) {
  return useMutation({ mutationFn: deleteAccount, gcTime: 0, onSuccess: onDeleted });
}

/** A new verification link to the signed-in user's address (`sent: false` when it is verified already). */
export function sendVerification(): Promise<{ sent: boolean }> {
  return http.post<{ sent: boolean }>('/api/v1/auth/verify-email/send');
}

export function useSendVerification() {
  return useMutation({ mutationFn: sendVerification });
}

export const alertKeys = { settings: ['notification-settings'] as const };

export const alertSettingsQuery = queryOptions({
  queryKey: alertKeys.settings,
  queryFn: ({ signal }) => http.get<NotificationSettings>('/api/v1/notifications/settings', { signal }),
});

export function useAlertSettings() {
  return useQuery(alertSettingsQuery);
}

export function useSaveAlertSettings() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: NotificationSettings) => http.put<NotificationSettings>('/api/v1/notifications/settings', body),
    onSuccess: (saved) => queryClient.setQueryData(alertKeys.settings, saved),
  });
}
