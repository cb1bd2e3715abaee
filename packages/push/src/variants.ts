import type { ContentAction, NotificationContent } from './payload.js';
import { type Translations, translatedContent } from './translations.js';

/** An alternative of an A/B test: what it leaves out is the send's own (docs/engagement.md). */
export interface Variant {
  title?: string;
  body?: string;
  url?: string;
  icon?: string;
  image?: string;
  actions?: ContentAction[];
}

/** The send's own content is `A`; its alternatives `B`, `C` and `D`, in order. */
export const VARIANT_LETTERS = ['A', 'B', 'C', 'D'] as const;

/** The letters of a send with `alternatives` alternatives (none without variants). */
export const variantLetters = (alternatives: number): string[] =>
  alternatives === 0 ? [] : VARIANT_LETTERS.slice(0, alternatives + 1);

/**
 * What a subscription given `letter` receives: the alternative's fields in place of the send's own,
 * marked with its letter (the legacy payload carries it as `variant`).
 */
export function variantContent<C extends NotificationContent>(
  content: C,
  variants: readonly Variant[],
  letter: string,
): C {
  const index = VARIANT_LETTERS.indexOf(letter as (typeof VARIANT_LETTERS)[number]);
  const variant = index > 0 ? variants[index - 1] : undefined;
  const chosen: C = { ...content, variant: letter };
  if (variant === undefined) return chosen;
  for (const field of ['title', 'body', 'url', 'icon', 'image', 'actions'] as const) {
    if (variant[field] !== undefined) Object.assign(chosen, { [field]: variant[field] });
  }
  return chosen;
}

/**
 * Every content some target of a send may receive: the send's own, each translation's and each
 * variant's. The byte rules hold for each of them.
 */
export function deliveredContents<C extends NotificationContent>(
  content: C & { translations?: Translations; variants?: readonly Variant[] },
): C[] {
  const variants = content.variants ?? [];
  if (variants.length > 0)
    return variantLetters(variants.length).map((letter) => variantContent(content, variants, letter));
  return [content, ...Object.values(content.translations ?? {}).map((entry) => translatedContent(content, entry))];
}
