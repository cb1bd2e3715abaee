import { needsHomeScreen } from '../home-screen.js';
import type { SubscribeOptions, SubscribeResult } from '../push-client.js';
import { getState, subscribe } from './core.js';
import { type HomeScreenText, homeScreenSteps, homeScreenText } from './home-screen-steps.js';
import {
  element,
  readStored,
  reasonOf,
  shadowHost,
  type UiLanguage,
  uiLanguage,
  uniqueId,
  writeStored,
} from './shared.js';

/*
 * The soft prompt: the site's own question first, the browser's permission prompt only after the
 * visitor said yes, from that click (browsers hide or block prompts shown on load or without a
 * gesture). A "no" is remembered in this origin's localStorage for `rememberNoDays`.
 */

export interface PromptText extends HomeScreenText {
  title: string;
  body: string;
  /** The yes button: asks the browser and subscribes. */
  allow: string;
  /** The no button (and Escape): remembered for `rememberNoDays`. */
  later: string;
  /** Closes the Home Screen instructions. */
  close: string;
}

export const promptText: Record<UiLanguage, PromptText> = {
  ja: {
    title: '新着のお知らせを通知で受け取りますか？',
    body: '新しい情報をブラウザの通知でお届けします。通知はいつでも止められます。',
    allow: '通知を受け取る',
    later: '今はしない',
    close: '閉じる',
    ...homeScreenText.ja,
  },
  en: {
    title: 'Get notified when there is something new?',
    body: 'We will send you browser notifications about news. You can turn them off at any time.',
    allow: 'Yes, notify me',
    later: 'Not now',
    close: 'Close',
    ...homeScreenText.en,
  },
};

export interface PromptOptions {
  /** What `subscribe()` gets when the visitor says yes (baseUrl, apiKey, tags, …). */
  subscribe: SubscribeOptions;
  /** The prompt's language; default: the page's `lang`, else the browser's (Japanese or English). */
  language?: UiLanguage;
  /** The site's own words, over the defaults of the language. */
  text?: Partial<PromptText>;
  /** Days a "no" keeps the prompt away (default 7; 0: not remembered). */
  rememberNoDays?: number;
  /** Show even while a "no" is remembered (e.g. from the site's own "notify me" link). */
  ignoreRememberedNo?: boolean;
  /** Where the prompt's element goes (default `document.body`). */
  container?: Element;
  /** false: on iOS Safari outside a Home Screen app, show nothing instead of the instructions. */
  homeScreenGuide?: boolean;
  /** Called when the visitor says yes, just before the browser is asked. */
  onAccept?: () => void;
  /**
   * Closes the prompt when aborted (say, when the page gives up waiting): it settles as `failed`
   * with the signal's reason, and nothing stays on the page.
   */
  signal?: AbortSignal;
}

export type PromptOutcome =
  /** The visitor said yes and the browser is subscribed (`result` says how). */
  | 'subscribed'
  /** Already subscribed: nothing was shown. */
  | 'already-subscribed'
  /** The visitor said no now (or pressed Escape); remembered for `rememberNoDays`. */
  | 'declined'
  /** A "no" of the last `rememberNoDays` days: nothing was shown. */
  | 'declined-recently'
  /** Notifications are blocked in this browser, or it has no web push: nothing was shown. */
  | 'denied'
  | 'unsupported'
  /** iOS outside a Home Screen app: the instructions were shown (when `homeScreenGuide` allows). */
  | 'home-screen-required'
  /** The visitor said yes but subscribing failed: `error` is the SDK's WebPushError. */
  | 'failed';

export interface PromptResult {
  outcome: PromptOutcome;
  result?: SubscribeResult;
  error?: unknown;
}

const DECLINED_KEY = 'webpush:prompt:declined';
const DAY_MS = 86_400_000;

/**
 * Whether a "no" is remembered: the time it was said, in this origin's localStorage. A value that
 * is not a time, or lies in the future, counts as none.
 */
export function declinedRecently(days = 7, now = Date.now()): boolean {
  const saidAt = Number(readStored(DECLINED_KEY));
  if (!Number.isFinite(saidAt) || saidAt <= 0 || saidAt > now) return false;
  return now - saidAt < days * DAY_MS;
}

/** Forgets a remembered "no" (say, when the visitor asks for notifications in the site's settings). */
export const forgetDecline = (): void => writeStored(DECLINED_KEY, null);

const STYLE = `
dialog { position: fixed; inset: 0 0 auto 0; margin: 12px auto; width: min(28rem, calc(100% - 24px)); max-width: none;
  padding: 20px; border: 1px solid var(--webpush-line, #dfe3ec); border-radius: var(--webpush-radius, 12px);
  background: var(--webpush-surface, #fff); color: var(--webpush-text, #1b1f2a);
  box-shadow: 0 12px 32px rgba(20, 26, 46, .22); animation: wp-slide .2s ease-out; }
dialog::backdrop { background: rgba(20, 26, 46, .25); }
@keyframes wp-slide { from { transform: translateY(-24px); opacity: 0; } }
@media (prefers-reduced-motion: reduce) { dialog { animation: none; } }
h2 { margin: 0 0 8px; font-size: 1.125rem; line-height: 1.35; }
p { margin: 0; }
.wp-steps { margin: 8px 0 0; padding-left: 1.5em; }
.wp-steps li { margin: 4px 0; }
.wp-steps svg { vertical-align: -4px; }
`;

/**
 * Shows the soft prompt (call it when the moment is right: after a purchase, on a "notify me" link;
 * never on page load) and settles with what happened. Nothing is shown when the browser is already
 * subscribed, blocked, without web push, or a "no" is remembered.
 */
export async function showPrompt(options: PromptOptions): Promise<PromptResult> {
  const days = options.rememberNoDays ?? 7;
  const language = uiLanguage(options.language);
  const text: PromptText = { ...promptText[language], ...options.text };
  const state = await getState(options.subscribe);
  if (state === 'subscribed') return { outcome: 'already-subscribed' };
  if (state === 'denied') return { outcome: 'denied' };
  const homeScreen = state === 'unsupported' && needsHomeScreen();
  if (state === 'unsupported' && !(homeScreen && options.homeScreenGuide !== false)) return { outcome: 'unsupported' };
  if (!options.ignoreRememberedNo && days > 0 && declinedRecently(days)) return { outcome: 'declined-recently' };
  if (options.signal?.aborted) return { outcome: 'failed', error: options.signal.reason };

  const { host, root } = shadowHost(STYLE, options.container ?? document.body);
  host.lang = language;
  const titleId = uniqueId('prompt-title');
  const bodyId = uniqueId('prompt-body');
  const dialog = element('dialog', { 'aria-labelledby': titleId, 'aria-describedby': bodyId, 'data-part': 'prompt' });
  const returnFocus = document.activeElement instanceof HTMLElement ? document.activeElement : null;

  return new Promise<PromptResult>((resolve) => {
    let settled = false;
    const finish = (result: PromptResult) => {
      if (settled) return;
      settled = true;
      if (result.outcome === 'declined' && days > 0) writeStored(DECLINED_KEY, String(Date.now()));
      options.signal?.removeEventListener('abort', abort);
      if (dialog.open) dialog.close();
      host.remove();
      returnFocus?.focus();
      resolve(result);
    };
    const abort = () => finish({ outcome: 'failed', error: options.signal?.reason });
    options.signal?.addEventListener('abort', abort);
    const later = element('button', { type: 'button', class: 'wp-button', 'data-action': 'later' });
    // Escape closes a modal dialog through `cancel`: the visitor's "not now".
    dialog.addEventListener('cancel', (event) => {
      event.preventDefault();
      finish({ outcome: homeScreen ? 'home-screen-required' : 'declined' });
    });

    if (homeScreen) {
      later.textContent = text.close;
      later.addEventListener('click', () => finish({ outcome: 'home-screen-required' }));
      dialog.append(
        element('h2', { id: titleId }, text.homeScreenTitle),
        element('div', { id: bodyId }, homeScreenSteps(text)),
        element('div', { class: 'wp-actions' }, later),
      );
    } else {
      later.textContent = text.later;
      later.addEventListener('click', () => finish({ outcome: 'declined' }));
      const allow = element(
        'button',
        { type: 'button', class: 'wp-button wp-primary', 'data-action': 'allow' },
        text.allow,
      );
      allow.addEventListener('click', () => {
        allow.disabled = later.disabled = true;
        dialog.setAttribute('aria-busy', 'true');
        options.onAccept?.();
        // Called inside the click, before any await of ours: Safari asks only within the gesture.
        subscribe(options.subscribe).then(
          (result) => finish({ outcome: 'subscribed', result }),
          (error: unknown) => finish({ outcome: reasonOf(error) === 'permission-denied' ? 'denied' : 'failed', error }),
        );
      });
      dialog.append(
        element('h2', { id: titleId }, text.title),
        element('p', { id: bodyId, class: 'wp-muted' }, text.body),
        element('div', { class: 'wp-actions' }, later, allow),
      );
      allow.autofocus = true;
    }
    root.append(dialog);
    dialog.showModal();
  });
}
