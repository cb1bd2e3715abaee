import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, call } from '../../api/client.js';

/** The scopes, lowest first; each has `keys.scope.<id>` and `keys.scope.<id>.explain` messages. */
export const SCOPES = ['subscribe_only', 'notify', 'full'] as const;
export type Scope = (typeof SCOPES)[number];

const createKey = (appId: string, key: { scope: Scope; name: string }) =>
  call(
    api.POST('/api/v1/apps/{appId}/keys', {
      params: { path: { appId } },
      body: { scope: key.scope, ...(key.name ? { name: key.name } : {}) },
    }),
  );

/** The app's API keys, without their secrets: the API shows a secret only in the answer that creates it. */
export const useKeys = (appId: string) =>
  useQuery({
    queryKey: ['keys', appId],
    queryFn: () => call(api.GET('/api/v1/apps/{appId}/keys', { params: { path: { appId } } })),
  });

/** `onCreated` gets the one answer that carries the secret, before the list reloads. */
export function useCreateKey(appId: string, onCreated: (answer: Awaited<ReturnType<typeof createKey>>) => void) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (key: { scope: Scope; name: string }) => createKey(appId, key),
    onSuccess: async (answer) => {
      onCreated(answer);
      await queryClient.invalidateQueries({ queryKey: ['keys', appId] });
    },
  });
}

/** Errors are thrown, for the confirm dialog that asked to show. */
export function useRevokeKey(appId: string) {
  const queryClient = useQueryClient();
  return async (keyId: string) => {
    await call(api.DELETE('/api/v1/apps/{appId}/keys/{keyId}', { params: { path: { appId, keyId } } }));
    await queryClient.invalidateQueries({ queryKey: ['keys', appId] });
  };
}
