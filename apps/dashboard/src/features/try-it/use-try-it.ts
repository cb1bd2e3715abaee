import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { ApiError, api, call } from '../../api/client.js';
import { LocalError } from '../../components/error-panel.js';
import { catalogues, useI18n } from '../../i18n/index.js';
import { currentSubscription, DASHBOARD_WORKER_URL, loadWebPushSdk } from './web-sdk.js';

/** The try-it key is named in the language of the page that made it (`try.keyName`). */
const tryItKeyNames = new Set(Object.values(catalogues).map((catalogue) => catalogue['try.keyName']));

/** Whether a key is the one "Try it" makes: the key list names it in the page's language. */
export const isTryItKey = (name: string | null | undefined) => name != null && tryItKeyNames.has(name);

/** The longest a subscribe may take: a push service that cannot be reached otherwise never answers. */
export const SUBSCRIBE_TIMEOUT_MS = 20_000;

/**
 * One subscribe_only key per app and browser, kept in this browser's local storage and reused by
 * every click. A subscribe_only key is public by design (it sits in every customer's web page), so
 * keeping it where the page can read it gives nothing away; the key list shows it by its name.
 */
const storedKeyName = (appId: string) => `wp_try_key_${appId}`;

async function tryItKey(appId: string, name: string, fresh: boolean): Promise<string> {
  const stored = fresh ? null : localStorage.getItem(storedKeyName(appId));
  if (stored) return stored;
  const key = await call(
    api.POST('/api/v1/apps/{appId}/keys', {
      params: { path: { appId } },
      body: { scope: 'subscribe_only', name },
    }),
  );
  localStorage.setItem(storedKeyName(appId), key.secret);
  return key.secret;
}

/** A failure of the "Try it" steps, with the message that names its likely cause. */
export class TryItError extends LocalError {}

const withTimeout = <T>(work: Promise<T>, ms: number): Promise<T> =>
  new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new TryItError('try.timeout')), ms);
    work.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });

/** The SDK's error (reason, and the API's code) as the dashboard shows it. */
function explain(error: unknown): unknown {
  const failure = error as { name?: string; reason?: string; code?: string; status?: number; message?: string };
  if (failure?.name !== 'WebPushError') return error;
  if (failure.reason === 'api' && failure.code) {
    return new ApiError(failure.status ?? 400, failure.code, failure.message ?? '');
  }
  if (failure.reason === 'permission-denied') {
    // Chromium refuses push in a private window with "permission denied" although permission was granted.
    return new TryItError(
      'Notification' in window && Notification.permission === 'granted' ? 'try.privateWindow' : 'try.denied',
    );
  }
  if (failure.reason === 'network') return new TryItError('try.network');
  if (failure.reason === 'unsupported') return new TryItError('try.unsupported');
  return new TryItError('try.serviceWorker');
}

/** This browser's permission and subscription, as the SDK sees them. */
export const useBrowserPushState = () =>
  useQuery({
    queryKey: ['browser-push-state'],
    queryFn: async () => (await loadWebPushSdk()).getState({ serviceWorkerUrl: DASHBOARD_WORKER_URL }),
    retry: false,
  });

/** Subscribes this browser to the app with the SDK, as a customer's page would. */
export function useSubscribeThisBrowser(appId: string) {
  const queryClient = useQueryClient();
  const { t } = useI18n();
  return useMutation({
    mutationFn: async () => {
      const sdk = await loadWebPushSdk();
      const attempt = async (fresh: boolean) => {
        const apiKey = await tryItKey(appId, t('try.keyName'), fresh);
        if (fresh) await queryClient.invalidateQueries({ queryKey: ['keys', appId] });
        return withTimeout(
          sdk.subscribe({ baseUrl: window.location.origin, apiKey, serviceWorkerUrl: DASHBOARD_WORKER_URL }),
          SUBSCRIBE_TIMEOUT_MS,
        );
      };
      try {
        return await attempt(false);
      } catch (error) {
        // The remembered key was revoked: make a new one, once.
        const revoked = (error as { code?: string } | null)?.code === 'INVALID_API_KEY';
        if (!revoked) throw explain(error);
        try {
          return await attempt(true);
        } catch (again) {
          throw explain(again);
        }
      }
    },
    // Failed too: a permission prompt the person answered "block" changes what the page says of it.
    onSettled: async () => {
      await queryClient.invalidateQueries({ queryKey: ['browser-push-state'] });
    },
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: ['app', appId] });
    },
  });
}

/** A test notification to this browser's subscription. */
export function useSendTestNotification(appId: string) {
  return useMutation({
    mutationFn: async () => {
      const subscription = await currentSubscription();
      if (!subscription) throw new TryItError('try.noSubscription');
      return call(
        api.POST('/api/v1/apps/{appId}/test-notification', {
          params: { path: { appId } },
          body: { subscription },
        }),
      );
    },
  });
}
