import { needsHomeScreen } from '../home-screen.js';
import type { PushState, SubscribeOptions } from '../push-client.js';
import { getState, subscribe, unsubscribe } from './core.js';
import { type HomeScreenText, homeScreenSteps, homeScreenText } from './home-screen-steps.js';
import { element, reasonOf, shadowHost, type UiLanguage, uiLanguage, uniqueId } from './shared.js';

/*
 * The bell: a round button that subscribes with one click (the click is the gesture the browser's
 * prompt needs); once subscribed, it opens a small panel whose button unsubscribes. Blocked or
 * unsupported browsers get the panel with a word on why (and the Home Screen steps on iOS).
 */

export interface BellText extends HomeScreenText {
  /** The button's name while not subscribed. */
  subscribe: string;
  /** The button's name while subscribed (it opens the panel). */
  settings: string;
  subscribed: string;
  unsubscribe: string;
  blocked: string;
  unsupported: string;
  failed: string;
}

export const bellText: Record<UiLanguage, BellText> = {
  ja: {
    subscribe: '通知を受け取る',
    settings: '通知の設定',
    subscribed: 'このブラウザに通知が届きます。',
    unsubscribe: '通知を止める',
    blocked: '通知がブロックされています。ブラウザのサイト設定で許可してください。',
    unsupported: 'このブラウザはプッシュ通知に対応していません。',
    failed: '通知を設定できませんでした。もう一度お試しください。',
    ...homeScreenText.ja,
  },
  en: {
    subscribe: 'Get notifications',
    settings: 'Notification settings',
    subscribed: 'This browser gets our notifications.',
    unsubscribe: 'Turn off notifications',
    blocked: 'Notifications are blocked. Allow them in the browser’s site settings.',
    unsupported: 'This browser cannot receive push notifications.',
    failed: 'Notifications could not be set up. Please try again.',
    ...homeScreenText.en,
  },
};

export interface BellOptions {
  /** What `subscribe()` gets on a click (baseUrl, apiKey, tags, …). */
  subscribe: SubscribeOptions;
  language?: UiLanguage;
  text?: Partial<BellText>;
  /** Where the bell goes: inside this element; default, fixed in the page's bottom right corner. */
  container?: Element;
  /** Called after each change the bell made (or saw): 'subscribed', 'unsubscribed', … */
  onChange?: (state: PushState) => void;
}

export interface Bell {
  /** The host element (its shadow root holds the button and the panel). */
  element: HTMLElement;
  /** Reads the browser's state again (after the site subscribed by other means). */
  refresh(): Promise<PushState>;
  remove(): void;
}

const STYLE = `
:host([data-corner]) { position: fixed; right: 16px; bottom: 16px; z-index: 2147483000; }
.wp-wrap { position: relative; display: inline-block; }
.wp-bell { width: 52px; height: 52px; padding: 0; border-radius: 50%; box-shadow: 0 4px 14px rgba(20, 26, 46, .25); }
.wp-bell svg { width: 26px; height: 26px; }
.wp-bell[data-state="subscribed"] { background: var(--webpush-surface, #fff); color: var(--webpush-accent, #2f4fd8); border-color: var(--webpush-accent, #2f4fd8); }
.wp-panel { position: absolute; right: 0; bottom: 64px; width: min(20rem, calc(100vw - 32px)); padding: 16px;
  border: 1px solid var(--webpush-line, #dfe3ec); border-radius: var(--webpush-radius, 12px); background: var(--webpush-surface, #fff);
  box-shadow: 0 12px 32px rgba(20, 26, 46, .22); }
:host(:not([data-corner])) .wp-panel { bottom: auto; top: 60px; left: 0; right: auto; }
.wp-panel p { margin: 0; }
.wp-panel h2 { margin: 0 0 8px; font-size: 1rem; }
.wp-steps { margin: 8px 0 0; padding-left: 1.5em; }
.wp-steps svg { vertical-align: -4px; }
.wp-panel .wp-actions { margin-top: 12px; }
`;

function bellIcon(): SVGSVGElement {
  const svg = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
  svg.setAttribute('viewBox', '0 0 24 24');
  svg.setAttribute('aria-hidden', 'true');
  svg.setAttribute('focusable', 'false');
  const path = document.createElementNS('http://www.w3.org/2000/svg', 'path');
  path.setAttribute('d', 'M6 8a6 6 0 1 1 12 0c0 7 3 9 3 9H3s3-2 3-9M10.3 21a1.94 1.94 0 0 0 3.4 0');
  path.setAttribute('fill', 'none');
  path.setAttribute('stroke', 'currentColor');
  path.setAttribute('stroke-width', '2');
  path.setAttribute('stroke-linecap', 'round');
  path.setAttribute('stroke-linejoin', 'round');
  svg.append(path);
  return svg;
}

/** Puts the bell into the page and reads the browser's state for it. */
export function mountBell(options: BellOptions): Bell {
  const language = uiLanguage(options.language);
  const text: BellText = { ...bellText[language], ...options.text };
  const { host, root } = shadowHost(STYLE, options.container ?? document.body);
  host.lang = language;
  if (!options.container) host.dataset.corner = '';

  const panelId = uniqueId('bell-panel');
  const button = element(
    'button',
    { type: 'button', class: 'wp-button wp-primary wp-bell', 'aria-label': text.subscribe, 'data-part': 'bell' },
    bellIcon(),
  );
  const panel = element('div', { id: panelId, class: 'wp-panel', role: 'region', 'aria-label': text.settings });
  panel.hidden = true;
  root.append(element('div', { class: 'wp-wrap' }, panel, button));

  let state: PushState = 'unsupported';
  let failure = '';

  const openPanel = (open: boolean) => {
    panel.hidden = !open;
    if (open) button.setAttribute('aria-expanded', 'true');
    else if (button.hasAttribute('aria-expanded')) button.setAttribute('aria-expanded', 'false');
    if (open) panel.querySelector<HTMLElement>('button')?.focus();
  };

  const render = () => {
    button.dataset.state = state;
    const opensPanel = state !== 'prompt' && state !== 'unsubscribed';
    button.setAttribute('aria-label', state === 'subscribed' ? text.settings : text.subscribe);
    if (opensPanel) button.setAttribute('aria-controls', panelId);
    else button.removeAttribute('aria-controls');
    if (opensPanel) button.setAttribute('aria-expanded', String(!panel.hidden));
    else button.removeAttribute('aria-expanded');
    panel.replaceChildren();
    if (failure) panel.append(element('p', { role: 'alert' }, failure));
    if (state === 'subscribed') {
      const off = element(
        'button',
        { type: 'button', class: 'wp-button', 'data-action': 'unsubscribe' },
        text.unsubscribe,
      );
      off.addEventListener('click', () => void act(() => unsubscribe(options.subscribe)));
      panel.append(element('p', {}, text.subscribed), element('div', { class: 'wp-actions' }, off));
    } else if (state === 'denied') {
      panel.append(element('p', {}, text.blocked));
    } else if (state === 'unsupported') {
      if (needsHomeScreen()) panel.append(element('h2', {}, text.homeScreenTitle), homeScreenSteps(text));
      else panel.append(element('p', {}, text.unsupported));
    }
  };

  const refresh = async () => {
    state = await getState(options.subscribe);
    render();
    return state;
  };

  const act = async (work: () => Promise<unknown>) => {
    failure = '';
    button.disabled = true;
    try {
      await work();
      openPanel(false);
    } catch (error) {
      if (reasonOf(error) !== 'permission-denied') failure = text.failed;
    } finally {
      button.disabled = false;
      await refresh();
      options.onChange?.(state);
      if (failure !== '') openPanel(true);
      button.focus();
    }
  };

  button.addEventListener('click', () => {
    if (state === 'prompt' || state === 'unsubscribed') {
      // subscribe() runs inside the click: the browser's prompt needs the gesture.
      void act(() => subscribe(options.subscribe));
    } else {
      openPanel(panel.hidden !== false);
    }
  });
  root.addEventListener('keydown', (event) => {
    if ((event as KeyboardEvent).key === 'Escape' && !panel.hidden) {
      openPanel(false);
      render();
      button.focus();
    }
  });

  void refresh();
  return { element: host, refresh, remove: () => host.remove() };
}
