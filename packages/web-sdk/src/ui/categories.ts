import type { SubscribeOptions, SubscribeResult } from '../push-client.js';
import { subscribe } from './core.js';
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
 * The category picker: the site lists its categories, the visitor ticks some and saves. Saving
 * subscribes (or re-subscribes) with one tag per ticked category, `{[tagPrefix + id]: "1"}`, beside
 * the site's own tags, so a send with `tags: {"news": "1"}` or a segment on that tag reaches them.
 * The last choice is remembered in this origin's localStorage to tick the boxes on the next visit.
 */

export interface Category {
  /** The tag key (after `tagPrefix`): letters, digits, `_ . -`, so it is a valid tag key. */
  id: string;
  label: string;
  /** Ticked when the visitor has not chosen yet. */
  checked?: boolean;
}

export interface CategoriesText {
  legend: string;
  save: string;
  saved: string;
  failed: string;
  blocked: string;
}

export const categoriesText: Record<UiLanguage, CategoriesText> = {
  ja: {
    legend: '受け取る通知を選んでください',
    save: '保存して通知を受け取る',
    saved: '保存しました。選んだ内容の通知が届きます。',
    failed: '保存できませんでした。もう一度お試しください。',
    blocked: '通知がブロックされています。ブラウザのサイト設定で許可してください。',
  },
  en: {
    legend: 'Choose what you want to be notified about',
    save: 'Save and get notifications',
    saved: 'Saved. You will get notifications for what you chose.',
    failed: 'That did not work. Please try again.',
    blocked: 'Notifications are blocked. Allow them in the browser’s site settings.',
  },
};

export interface CategoriesOptions {
  /** The picker goes inside this element. */
  container: Element;
  categories: Category[];
  /** What `subscribe()` gets; its own `tags` are kept beside the categories. */
  subscribe: SubscribeOptions;
  /** Put before each category id to make its tag key (default none). */
  tagPrefix?: string;
  language?: UiLanguage;
  text?: Partial<CategoriesText>;
  /** Called after a save that subscribed, with the tags sent. */
  onSaved?: (result: SubscribeResult, tags: Record<string, string>) => void;
}

export interface CategoryPicker {
  element: HTMLElement;
  /** The ids ticked now. */
  selected(): string[];
  remove(): void;
}

const CHOSEN_KEY = 'webpush:categories';

const STYLE = `
fieldset { margin: 0; padding: 16px; border: 1px solid var(--webpush-line, #dfe3ec); border-radius: var(--webpush-radius, 12px);
  background: var(--webpush-surface, #fff); }
legend { padding: 0 4px; font-weight: 700; }
label { display: flex; align-items: center; gap: 10px; min-height: 44px; cursor: pointer; }
input { width: 20px; height: 20px; margin: 0; accent-color: var(--webpush-accent, #2f4fd8); }
.wp-actions { justify-content: flex-start; }
p { margin: 12px 0 0; }
p:empty { display: none; }
`;

function rememberedChoice(): string[] | null {
  try {
    const parsed: unknown = JSON.parse(readStored(CHOSEN_KEY) ?? 'null');
    return Array.isArray(parsed) ? parsed.filter((id): id is string => typeof id === 'string') : null;
  } catch {
    return null;
  }
}

/** Puts the picker into `container`. */
export function mountCategories(options: CategoriesOptions): CategoryPicker {
  const language = uiLanguage(options.language);
  const text: CategoriesText = { ...categoriesText[language], ...options.text };
  const { host, root } = shadowHost(STYLE, options.container);
  host.lang = language;
  const remembered = rememberedChoice();

  const boxes = options.categories.map((category) => {
    const id = uniqueId('category');
    const box = element('input', { type: 'checkbox', id, value: category.id });
    box.checked = remembered ? remembered.includes(category.id) : category.checked === true;
    return { box, label: element('label', { for: id }, box, category.label) };
  });
  const save = element('button', { type: 'button', class: 'wp-button wp-primary', 'data-action': 'save' }, text.save);
  const status = element('p', { role: 'status' });
  root.append(
    element(
      'fieldset',
      { 'data-part': 'categories' },
      element('legend', {}, text.legend),
      ...boxes.map(({ label }) => label),
      element('div', { class: 'wp-actions' }, save),
      status,
    ),
  );

  const selected = () => boxes.filter(({ box }) => box.checked).map(({ box }) => box.value);

  save.addEventListener('click', () => {
    const chosen = selected();
    const tags: Record<string, string> = { ...options.subscribe.tags };
    for (const id of chosen) tags[`${options.tagPrefix ?? ''}${id}`] = '1';
    save.disabled = true;
    status.textContent = '';
    // Inside the click, before any await: the browser's permission prompt needs the gesture.
    subscribe({ ...options.subscribe, tags }).then(
      (result) => {
        writeStored(CHOSEN_KEY, JSON.stringify(chosen));
        status.textContent = text.saved;
        save.disabled = false;
        options.onSaved?.(result, tags);
      },
      (error: unknown) => {
        status.textContent = reasonOf(error) === 'permission-denied' ? text.blocked : text.failed;
        save.disabled = false;
      },
    );
  });

  return { element: host, selected, remove: () => host.remove() };
}
