import { useMutation, useQueryClient } from '@tanstack/react-query';
import { ApiError, api, call } from '../../api/client.js';
import { switchUser } from '../../api/session.js';
import type { SecondFactor } from './second-factor.js';

/** E-mail and password, and at the second step of a two-factor sign-in its code. */
type Credentials = { email: string; password: string } & Partial<SecondFactor>;

/** Signs in, or registers (`signUp`), and makes the answer's user the cached one. */
export function useSignIn(signUp: boolean, onSignedIn: () => void | Promise<void>) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: Credentials) =>
      call(
        signUp
          ? api.POST('/api/v1/auth/register', { body: { email: body.email, password: body.password } })
          : api.POST('/api/v1/auth/login', { body }),
      ),
    onSuccess: async (answer) => {
      switchUser(queryClient, answer.user);
      await onSignedIn();
    },
  });
}

/**
 * Completes a GitHub sign-in that waits for the two-factor code: the callback left an HttpOnly cookie
 * for POST /auth/github/totp and sent the browser to /login?twoFactor=github.
 */
export function useGithubTwoFactor(onSignedIn: () => void | Promise<void>) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: SecondFactor) => call(api.POST('/api/v1/auth/github/totp', { body })),
    onSuccess: async (answer) => {
      switchUser(queryClient, answer.user);
      await onSignedIn();
    },
  });
}

export const useResendVerification = () =>
  useMutation({ mutationFn: () => call(api.POST('/api/v1/auth/verify-email/resend')) });

export function useVerifyEmail() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (token: string) => {
      try {
        return await call(api.POST('/api/v1/auth/verify-email', { body: { token } }));
      } catch (error) {
        // A link opened twice is INVALID_TOKEN; ask whether it was this account's, now verified.
        if (!(error instanceof ApiError) || error.code !== 'INVALID_TOKEN') throw error;
        const check = await call(api.POST('/api/v1/auth/verify-email/check', { body: { token } })).catch(() => null);
        if (check?.alreadyVerified) return { alreadyVerified: true as const };
        throw error;
      }
    },
    onSuccess: async (answer) => {
      if (!('user' in answer)) return;
      // A /auth/me already in flight would land after this with `emailVerified: false` and bring the
      // banner back: cancel it, update the cached user when it is this one, then ask again.
      await queryClient.cancelQueries({ queryKey: ['me'] });
      const current = queryClient.getQueryData<{ id: string } | null>(['me']);
      if (current && current.id === answer.user.id) queryClient.setQueryData(['me'], answer.user);
      await queryClient.invalidateQueries({ queryKey: ['me'] });
    },
  });
}

export const useAskPasswordReset = () =>
  useMutation({ mutationFn: (email: string) => call(api.POST('/api/v1/auth/password-reset', { body: { email } })) });

export function useResetPassword() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: { token: string; password: string }) =>
      call(api.POST('/api/v1/auth/password-reset/confirm', { body })),
    // Every session of the user ended: this browser's too when it was signed in as them.
    onSuccess: async () => {
      const current = queryClient.getQueryData<{ id: string } | null>(['me']);
      if (current) switchUser(queryClient, null);
      await queryClient.invalidateQueries({ queryKey: ['me'] });
    },
  });
}
