import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, call } from '../../api/client.js';
import { switchUser } from '../../api/session.js';

/** Every live session of the account, this device's marked. */
export const useSessions = () =>
  useQuery({ queryKey: ['sessions'], queryFn: () => call(api.GET('/api/v1/auth/sessions')) });

/** Ends one session, or every other one (no id); errors are thrown, for the confirm dialog. */
export function useEndSessions() {
  const queryClient = useQueryClient();
  return async (id?: string) => {
    await call(
      id === undefined
        ? api.DELETE('/api/v1/auth/sessions')
        : api.DELETE('/api/v1/auth/sessions/{id}', { params: { path: { id } } }),
    );
    await queryClient.invalidateQueries({ queryKey: ['sessions'] });
  };
}

export function useSignOut(onSignedOut: () => void | Promise<void>) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => call(api.POST('/api/v1/auth/logout')),
    // Marked as a sign-out: the signed-in page, left without a user, would otherwise send the
    // browser to /sign-in?next=<that page>, as if the session had expired there.
    onSuccess: async () => {
      switchUser(queryClient, null, { signingOut: true });
      await onSignedOut();
    },
  });
}

/** The API's error body, whatever the route (its `{error, code}` shape is the same everywhere). */
type ErrorBody = { error?: unknown; code?: unknown; upgrade_url?: unknown };

/**
 * POST /auth/password with the current and the new password. Written as a plain request because
 * the route is newer than the generated client types (src/api/openapi.d.ts); `call` reads its answer
 * like every other.
 */
const postPassword = (body: { currentPassword: string; newPassword: string }) =>
  call(
    fetch('/api/v1/auth/password', {
      method: 'POST',
      credentials: 'same-origin',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    }).then(async (response) => {
      const parsed: unknown = await response.json().catch(() => undefined);
      return response.ok ? { data: parsed, response } : { error: parsed as ErrorBody, response };
    }),
  );

/** Changes the password; this session stays, the others end, so the sessions list is asked again. */
export function useChangePassword(onChanged: () => void) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: postPassword,
    onSuccess: async () => {
      onChanged();
      await queryClient.invalidateQueries({ queryKey: ['sessions'] });
    },
  });
}
