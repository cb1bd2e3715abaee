import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { ApiError, api, call } from '../../api/client.js';
import { LocalError } from '../../components/error-panel.js';
import { catalogues, useI18n } from '../../i18n/index.js';
import {
  currentSubscription,
  DASHBOARD_WORKER_URL,
  loadWebPushSdk,
  type PromptAnswer,
  type SubscribeResult,
} from './web-sdk.js';

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

/**
 * A deadline that starts when the visitor says yes in the soft prompt, not when it opens: how long
 * they take to decide is theirs, how long the push service takes is what the timeout is for.
 */
function deadlineFromAcceptance(ms: number): { accept: () => void; expired: Promise<never>; clear: () => void } {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let accept = () => {};
  const expired = new Promise<never>((_, reject) => {
    accept = () => {
      timer ??= setTimeout(() => reject(new TryItError('try.timeout')), ms);
    };
  });
  return { accept, expired, clear: () => clearTimeout(timer) };
}

const isRevokedKey = (error: unknown) => (error as { code?: string } | null)?.code === 'INVALID_API_KEY';

/**
 * Subscribes this browser to the app as a customer's page should: the SDK's soft prompt first, the
 * browser's permission prompt after its yes. Null when the person chose "not now".
 */
export function useSubscribeThisBrowser(appId: string) {
  const queryClient = useQueryClient();
  const { t, language } = useI18n();
  return useMutation({
    mutationFn: async (): Promise<SubscribeResult | null> => {
      const sdk = await loadWebPushSdk();
      const target = (apiKey: string) => ({
        baseUrl: window.location.origin,
        apiKey,
        serviceWorkerUrl: DASHBOARD_WORKER_URL,
      });
      const subscribeDirectly = async (fresh: boolean) => {
        const apiKey = await tryItKey(appId, t('try.keyName'), fresh);
        if (fresh) await queryClient.invalidateQueries({ queryKey: ['keys', appId] });
        return withTimeout(sdk.subscribe(target(apiKey)), SUBSCRIBE_TIMEOUT_MS);
      };
      const apiKey = await tryItKey(appId, t('try.keyName'), false);
      const deadline = deadlineFromAcceptance(SUBSCRIBE_TIMEOUT_MS);
      // Past the deadline the prompt goes too: a dialog left on the page would cover the next try.
      const closePrompt = new AbortController();
      let answer: PromptAnswer;
      try {
        answer = await Promise.race([
          sdk.prompt.showPrompt({
            subscribe: target(apiKey),
            language,
            ignoreRememberedNo: true,
            text: { title: t('try.promptTitle'), body: t('try.promptBody') },
            onAccept: deadline.accept,
            signal: closePrompt.signal,
          }),
          deadline.expired,
        ]);
      } finally {
        deadline.clear();
        closePrompt.abort(new TryItError('try.timeout'));
      }
      try {
        switch (answer.outcome) {
          case 'subscribed':
            if (answer.result) return answer.result;
            break;
          case 'declined':
            return null;
          // Subscribed before: subscribing again stores it for this app and shows its id.
          case 'already-subscribed':
            return await subscribeDirectly(false);
          case 'unsupported':
          case 'home-screen-required':
            throw new TryItError('try.unsupported');
        }
        throw answer.error ?? new TryItError('try.denied');
      } catch (error) {
        // The remembered key was revoked: make a new one, once; the person already said yes.
        if (!isRevokedKey(error)) throw explain(error);
        try {
          return await subscribeDirectly(true);
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
