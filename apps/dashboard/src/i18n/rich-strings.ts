import { useI18n } from './index.js';

/**
 * The words of the rich-notification and push-format controls, in both languages the dashboard
 * speaks (their labels are functions, so they stay beside the catalogue in src/i18n); `useRichText()`
 * gives the page's language.
 */
export const richStrings = {
  en: {
    richLegend: 'Picture, buttons and behaviour (optional)',
    image: 'Image',
    imageHint: 'A large picture shown in the notification (https).',
    buttonLabel: (n: number) => `Button ${n} label`,
    buttonLink: (n: number) => `Button ${n} link`,
    buttonLinkHint: 'Opened when the button is clicked; empty: the notification’s link.',
    tag: 'Tag',
    tagHint: 'A later notification with the same tag replaces this one on the device.',
    requireInteraction: 'Stays until dismissed',
    silent: 'Silent (no sound or vibration)',
    buttonClicks: 'Clicks per button',
    pushFormatTitle: 'Push format',
    pushFormatLegacy: 'Legacy: the SDK’s service worker shows each notification',
    pushFormatDeclarative: 'Declarative: Safari 18.4+ shows notifications without a service worker',
    pushFormatHelp:
      'Declarative sends a W3C declarative push message: iPhones and Macs show it even when the service worker is not running; clicks are counted through this service’s links.',
    defaultUrl: 'Default page',
    defaultUrlHint: 'Opened by a click on a notification without a link. Required for declarative.',
    save: 'Save',
    saving: 'Saving…',
    saved: 'Saved.',
  },
  ja: {
    richLegend: '画像・ボタン・表示方法（任意）',
    image: '画像',
    imageHint: '通知に大きく表示する画像（https）。',
    buttonLabel: (n: number) => `ボタン${n}の表示名`,
    buttonLink: (n: number) => `ボタン${n}のリンク`,
    buttonLinkHint: 'ボタンを押すと開きます。空欄なら通知のリンク。',
    tag: 'タグ',
    tagHint: '同じタグの通知が届くと、端末上の前の通知を置き換えます。',
    requireInteraction: '閉じるまで表示し続ける',
    silent: 'サイレント（音・振動なし）',
    buttonClicks: 'ボタン別クリック数',
    pushFormatTitle: 'プッシュ形式',
    pushFormatLegacy: '従来形式：SDK の Service Worker が通知を表示',
    pushFormatDeclarative: '宣言的形式：Safari 18.4 以降は Service Worker なしで表示',
    pushFormatHelp:
      '宣言的形式では W3C の宣言的プッシュメッセージを送ります。Service Worker が動いていなくても iPhone や Mac に表示され、クリックは本サービスのリンク経由で数えます。',
    defaultUrl: '既定のページ',
    defaultUrlHint: 'リンクのない通知をクリックしたときに開くページ。宣言的形式では必須です。',
    save: '保存',
    saving: '保存中…',
    saved: '保存しました。',
  },
} as const;

/** The rich-notification words in the page's language. */
export const useRichText = () => richStrings[useI18n().language];
