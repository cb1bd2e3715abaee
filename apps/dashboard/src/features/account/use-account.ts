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
    onSuccess: async () => {
      switchUser(queryClient, null);
      await onSignedOut();
    },
  });
}
