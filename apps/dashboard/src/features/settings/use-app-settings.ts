import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, call } from '../../api/client.js';
import type { paths } from '../../api/openapi.js';

type AppChange = NonNullable<paths['/api/v1/apps/{appId}']['patch']['requestBody']>['content']['application/json'];

const updateApp = (appId: string, change: AppChange) =>
  call(api.PATCH('/api/v1/apps/{appId}', { params: { path: { appId } }, body: change }));

/** Changes the app's settings; `onSaved` sees the answer before the app reloads. */
export function useUpdateApp(appId: string, onSaved?: (answer: Awaited<ReturnType<typeof updateApp>>) => void) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (change: AppChange) => updateApp(appId, change),
    onSuccess: async (answer, change) => {
      onSaved?.(answer);
      await queryClient.invalidateQueries({ queryKey: ['app', appId] });
      // The name shows in the app list and the app switcher too.
      if (change.name !== undefined) await queryClient.invalidateQueries({ queryKey: ['apps'] });
    },
  });
}

/** Errors are thrown, for the confirm dialog that asked to show. */
export function useRotateVapidKey(appId: string, onRotated: () => void) {
  const queryClient = useQueryClient();
  return async () => {
    await call(api.POST('/api/v1/apps/{appId}/vapid-key/rotate', { params: { path: { appId } } }));
    onRotated();
    await queryClient.invalidateQueries({ queryKey: ['app', appId] });
    await queryClient.invalidateQueries({ queryKey: ['apps'] });
  };
}

/** A new identity secret (the old one stops working); errors are thrown, for the confirm dialog. */
export const createIdentitySecret = async (appId: string) =>
  (await call(api.POST('/api/v1/apps/{appId}/identity-secret', { params: { path: { appId } } }))).secret;

/** Errors are thrown, for the confirm dialog; `onDeleted` leaves the app's pages once the list is fresh. */
export function useDeleteApp(appId: string, onDeleted: () => void | Promise<void>) {
  const queryClient = useQueryClient();
  return async () => {
    await call(api.DELETE('/api/v1/apps/{appId}', { params: { path: { appId } } }));
    queryClient.removeQueries({ predicate: (query) => query.queryKey.includes(appId) });
    await queryClient.invalidateQueries({ queryKey: ['apps'] });
    await onDeleted();
  };
}
