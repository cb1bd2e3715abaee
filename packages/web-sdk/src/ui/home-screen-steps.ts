import { element, shareIcon, type UiLanguage } from './shared.js';

export interface HomeScreenText {
  /** Heading of the Home Screen instructions. */
  homeScreenTitle: string;
  /** The three steps; the first gets the Share icon after its text. */
  homeScreenSteps: [string, string, string];
}

export const homeScreenText: Record<UiLanguage, HomeScreenText> = {
  ja: {
    homeScreenTitle: 'ホーム画面に追加すると通知を受け取れます',
    homeScreenSteps: [
      'Safari の共有ボタンをタップします',
      '「ホーム画面に追加」を選びます',
      'ホーム画面のアイコンから開き、通知を許可します',
    ],
  },
  en: {
    homeScreenTitle: 'Add this site to your Home Screen to get notifications',
    homeScreenSteps: [
      'Tap the Share button in Safari',
      'Choose “Add to Home Screen”',
      'Open the site from its Home Screen icon and allow notifications',
    ],
  },
};

/** The iOS / iPadOS steps as an ordered list. */
export function homeScreenSteps(text: HomeScreenText): HTMLOListElement {
  const [share, add, open] = text.homeScreenSteps;
  return element(
    'ol',
    { class: 'wp-steps' },
    element('li', {}, share, ' ', shareIcon()),
    element('li', {}, add),
    element('li', {}, open),
  );
}
