import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { ApiError, api, call } from '../../api/client.js';

/** The events; each has a `webhook.event.<id>` message. */
export const WEBHOOK_EVENTS = ['notification.completed', 'notification.failed', 'subscription.expired'] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

const fetchWebhook = async (appId: string) => {
  try {
    // No webhook yet: `{webhook: null}`, or 404 from a server older than that answer.
    return (await call(api.GET('/api/v1/apps/{appId}/webhook', { params: { path: { appId } } }))).webhook ?? null;
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) return null;
    throw error;
  }
};

/** The app's webhook with its circuit breaker. */
export type WebhookAnswer = NonNullable<Awaited<ReturnType<typeof fetchWebhook>>>;

/** The app's webhook, null when it has none. Read by the settings and by the app's layout. */
export const useWebhook = (appId: string) =>
  useQuery({
    queryKey: ['webhook', appId],
    queryFn: () => fetchWebhook(appId),
    // A paused or disabled webhook changes without the owner: follow it.
    refetchInterval: (query) => (query.state.data && query.state.data.status !== 'active' ? 5_000 : false),
  });

export const useWebhookDeliveries = (appId: string) =>
  useQuery({
    queryKey: ['webhook-deliveries', appId],
    queryFn: () =>
      call(
        api.GET('/api/v1/apps/{appId}/webhook/deliveries', {
          params: { path: { appId }, query: { limit: 20 } },
        }),
      ),
    refetchInterval: 5_000,
  });

const saveWebhook = (appId: string, webhook: { url: string; events: WebhookEvent[] }) =>
  call(api.PUT('/api/v1/apps/{appId}/webhook', { params: { path: { appId } }, body: webhook }));

/** Creates or replaces the webhook; `onSaved` sees the answer (its secret) before the webhook reloads. */
export function useSaveWebhook(appId: string, onSaved: (answer: Awaited<ReturnType<typeof saveWebhook>>) => void) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (webhook: { url: string; events: WebhookEvent[] }) => saveWebhook(appId, webhook),
    onSuccess: async (answer) => {
      onSaved(answer);
      await queryClient.invalidateQueries({ queryKey: ['webhook', appId] });
    },
  });
}

export function useResendDelivery(appId: string, onSent: (messageId: string) => void) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (deliveryId: string) =>
      call(
        api.POST('/api/v1/apps/{appId}/webhook/deliveries/{deliveryId}/retry', {
          params: { path: { appId, deliveryId } },
        }),
      ),
    onSuccess: async (answer) => {
      onSent(answer.delivery.messageId);
      await queryClient.invalidateQueries({ queryKey: ['webhook-deliveries', appId] });
    },
  });
}

export function useResumeWebhook(appId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => call(api.POST('/api/v1/apps/{appId}/webhook/resume', { params: { path: { appId } } })),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: ['webhook', appId] });
      await queryClient.invalidateQueries({ queryKey: ['webhook-deliveries', appId] });
    },
  });
}

/** The new signing secret; errors are thrown, for the confirm dialog that asked to show. */
export const rotateWebhookSecret = async (appId: string) =>
  (await call(api.POST('/api/v1/apps/{appId}/webhook/rotate-secret', { params: { path: { appId } } }))).webhook.secret;

/** `onRemoved` runs before the webhook reloads; errors are thrown, for the confirm dialog. */
export function useRemoveWebhook(appId: string, onRemoved: () => void) {
  const queryClient = useQueryClient();
  return async () => {
    await call(api.DELETE('/api/v1/apps/{appId}/webhook', { params: { path: { appId } } }));
    onRemoved();
    await queryClient.invalidateQueries({ queryKey: ['webhook', appId] });
  };
}
