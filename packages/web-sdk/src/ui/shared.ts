/*
 * What the prompt, the bell and the category picker share: a shadow root of their own (the site's
 * CSS cannot break them, theirs cannot leak out), styles adopted as a constructed sheet (a page's
 * Content-Security-Policy governs <style> elements, not constructed sheets), the language choice,
 * and this origin's localStorage, which no other origin can read or write.
 */

export type UiLanguage = 'ja' | 'en';

/** Japanese for a page or browser in Japanese, English otherwise; the site may name one. */
export function uiLanguage(language?: UiLanguage): UiLanguage {
  if (language) return language;
  const page = typeof document === 'undefined' ? '' : document.documentElement.lang;
  const browser = typeof navigator === 'undefined' ? '' : navigator.language;
  return /^ja\b/i.test(page || browser) ? 'ja' : 'en';
}

/** Colours and shape follow the site through custom properties, which cross the shadow boundary. */
const BASE_STYLE = `
:host { all: initial; font-family: var(--webpush-font, system-ui, -apple-system, "Segoe UI", Roboto, "Hiragino Sans", "Noto Sans JP", sans-serif);
  font-size: 16px; line-height: 1.5; color: var(--webpush-text, #1b1f2a); }
/* Japanese breaks between phrases, not inside a word, where the browser can (Chrome 119+). */
:host(:lang(ja)) { word-break: auto-phrase; }
* { box-sizing: border-box; }
.wp-button { display: inline-flex; align-items: center; justify-content: center; min-height: 44px; padding: 8px 16px;
  border: 1px solid var(--webpush-line, #b9c0d3); border-radius: var(--webpush-radius, 8px); background: var(--webpush-surface, #fff);
  color: var(--webpush-text, #1b1f2a); font: inherit; font-weight: 600; cursor: pointer; }
.wp-button:disabled { opacity: .6; cursor: progress; }
.wp-primary { background: var(--webpush-accent, #2f4fd8); border-color: var(--webpush-accent, #2f4fd8); color: var(--webpush-on-accent, #fff); }
.wp-button:focus-visible, input:focus-visible { outline: 3px solid var(--webpush-accent, #2f4fd8); outline-offset: 2px; }
.wp-muted { color: var(--webpush-muted, #4a5264); }
.wp-actions { display: flex; flex-wrap: wrap; gap: 8px; justify-content: flex-end; margin-top: 16px; }
`;

/** A host element with an open shadow root and the part's styles. */
export function shadowHost(style: string, container: Element): { host: HTMLElement; root: ShadowRoot } {
  const host = document.createElement('div');
  host.dataset.webpush = '';
  const root = host.attachShadow({ mode: 'open' });
  const css = BASE_STYLE + style;
  if ('adoptedStyleSheets' in root && typeof CSSStyleSheet === 'function' && 'replaceSync' in CSSStyleSheet.prototype) {
    const sheet = new CSSStyleSheet();
    sheet.replaceSync(css);
    root.adoptedStyleSheets = [sheet];
  } else {
    const element = document.createElement('style');
    element.textContent = css;
    root.append(element);
  }
  container.append(host);
  return { host, root };
}

type Child = Node | string | null | undefined | false;

/** document.createElement with attributes and children; text is always set as text, never parsed. */
export function element<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Record<string, string> = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
  for (const child of children) if (child) node.append(child);
  return node;
}

let counter = 0;
/** Ids for aria-labelledby and friends, unique in the page. */
export const uniqueId = (prefix: string) => `webpush-${prefix}-${++counter}`;

/** localStorage, or nothing where it is unavailable (sandboxed frames, some private modes). */
export function readStored(key: string): string | null {
  try {
    return localStorage.getItem(key);
  } catch {
    return null;
  }
}

export function writeStored(key: string, value: string | null): void {
  try {
    if (value === null) localStorage.removeItem(key);
    else localStorage.setItem(key, value);
  } catch {
    // Nothing to remember with: the prompt may then ask again on a later visit.
  }
}

/** The `reason` of an SDK failure (a WebPushError, from this bundle or the script-tag one). */
export const reasonOf = (error: unknown): string | undefined => {
  const reason = (error as { reason?: unknown } | null)?.reason;
  return typeof reason === 'string' ? reason : undefined;
};

/** Share icon of iOS Safari (a box with an arrow up), for the Home Screen steps. */
export function shareIcon(): SVGSVGElement {
  const svg = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
  svg.setAttribute('viewBox', '0 0 24 24');
  svg.setAttribute('width', '20');
  svg.setAttribute('height', '20');
  svg.setAttribute('aria-hidden', 'true');
  svg.setAttribute('focusable', 'false');
  const path = document.createElementNS('http://www.w3.org/2000/svg', 'path');
  path.setAttribute('d', 'M12 3v12M8 7l4-4 4 4M6 11H5v10h14V11h-1');
  path.setAttribute('fill', 'none');
  path.setAttribute('stroke', 'currentColor');
  path.setAttribute('stroke-width', '2');
  path.setAttribute('stroke-linecap', 'round');
  path.setAttribute('stroke-linejoin', 'round');
  svg.append(path);
  return svg;
}
