import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, call } from '../../api/client.js';
import { switchUser } from '../../api/session.js';
import type { SecondFactor } from '../auth/second-factor.js';

/** Each change below joins the account's audit log, shown on the same page: asked again after it. */
const ACTIVITY = { queryKey: ['account-audit-log'] };

/** The user object says `totpEnabled`: asked again after two-factor sign-in is turned on or off. */
function useMeChange<Input, Output>(change: (input: Input) => Promise<Output>) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: change,
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: ['me'] });
      await queryClient.invalidateQueries(ACTIVITY);
    },
  });
}

/** A new secret to scan; nothing changes until a code of it confirms it. */
export const useTotpSetup = () => useMutation({ mutationFn: () => call(api.POST('/api/v1/auth/totp/setup')) });

/**
 * Turns two-factor sign-in on. `onEnabled` has the recovery codes (never shown again) before the user
 * is asked for again: the page must hold them before `totpEnabled` changes what it shows.
 */
export function useEnableTotp(onEnabled: (recoveryCodes: string[]) => void) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (code: string) => call(api.POST('/api/v1/auth/totp/enable', { body: { code } })),
    onSuccess: async (answer) => {
      onEnabled(answer.recoveryCodes);
      await queryClient.invalidateQueries({ queryKey: ['me'] });
      await queryClient.invalidateQueries(ACTIVITY);
    },
  });
}

/** Turns it off with a current code or an unused recovery code. */
export const useDisableTotp = () =>
  useMeChange((code: string) => call(api.DELETE('/api/v1/auth/totp', { body: { code } })));

/** The account's personal access tokens (never their secrets), oldest first. */
export const useAccessTokens = () =>
  useQuery({ queryKey: ['access-tokens'], queryFn: () => call(api.GET('/api/v1/auth/tokens')) });

export function useCreateAccessToken(onCreated: (secret: string) => void) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (name: string) => call(api.POST('/api/v1/auth/tokens', { body: { name } })),
    onSuccess: async (answer) => {
      onCreated(answer.secret);
      await queryClient.invalidateQueries({ queryKey: ['access-tokens'] });
      await queryClient.invalidateQueries(ACTIVITY);
    },
  });
}

/** Errors are thrown, for the confirm dialog that asked to show. */
export function useRevokeAccessToken() {
  const queryClient = useQueryClient();
  return async (id: string) => {
    await call(api.DELETE('/api/v1/auth/tokens/{id}', { params: { path: { id } } }));
    await queryClient.invalidateQueries({ queryKey: ['access-tokens'] });
    await queryClient.invalidateQueries(ACTIVITY);
  };
}

/** The sign-in page that says the account was deleted. */
export const ACCOUNT_DELETED_PAGE = '/sign-in?account=deleted';

/**
 * Deletes the account and everything it owns. The session is gone with it: the cached user and every
 * other answer are dropped, and the signed-in page goes to the sign-in page that says so.
 */
export function useDeleteAccount(onDeleted: (page: string) => void | Promise<void>) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: { password?: string } & Partial<SecondFactor>) => call(api.DELETE('/api/v1/auth/me', { body })),
    onSuccess: async () => {
      // The destination is the same for the page left without a user (RequireUser) and for this one.
      switchUser(queryClient, null, { signingOut: true, to: ACCOUNT_DELETED_PAGE });
      await onDeleted(ACCOUNT_DELETED_PAGE);
    },
  });
}
