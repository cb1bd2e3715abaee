import { MAX_ACTIONS, MAX_SAMPLE, MAX_VARIANTS, MAX_WINNER_AFTER_MINUTES, MIN_SAMPLE } from '@webpush/plans';
import type { Problem } from '../../components/field.js';
import type { Draft } from './send-draft.js';
import type { RichDraft } from './send-rich-fields.js';

/*
 * An A/B test in the send form: the send's own content is variant A, each alternative (B–D) changes
 * only the fields filled in. The bounds are the API's own (@webpush/plans).
 */

export const VARIANT_NAMES = ['A', 'B', 'C', 'D'] as const;
export { MAX_VARIANTS };

/** An alternative's fields, as typed: an empty one is variant A's. */
export interface VariantDraft {
  title: string;
  body: string;
  url: string;
  icon: string;
  image: string;
  buttons: { title: string; url: string }[];
}

export const EMPTY_VARIANT: VariantDraft = {
  title: '',
  body: '',
  url: '',
  icon: '',
  image: '',
  buttons: Array.from({ length: MAX_ACTIONS }, () => ({ title: '', url: '' })),
};

/** The ids of an alternative's fields, `variant-b-title` and so on. */
export const variantFieldId = (index: number, field: string) =>
  `variant-${(VARIANT_NAMES[index + 1] ?? '').toLowerCase()}-${field}`;

/** An alternative as the API takes it: only its filled-in fields (buttons when one has a label). */
export function variantPayloadOf(variant: VariantDraft) {
  const payload: {
    title?: string;
    body?: string;
    url?: string;
    icon?: string;
    image?: string;
    actions?: { action: string; title: string; url?: string }[];
  } = {};
  for (const field of ['title', 'body', 'url', 'icon', 'image'] as const)
    if (variant[field]) payload[field] = variant[field];
  const actions = variant.buttons
    .map((button, i) => ({ action: `button-${i + 1}`, title: button.title.trim(), url: button.url }))
    .filter((button) => button.title)
    .map(({ url, ...button }) => (url ? { ...button, url } : button));
  if (actions.length > 0) payload.actions = actions;
  return payload;
}

/** What a target of this alternative receives: variant A with the alternative's fields over it (preview, byte count). */
export function mergedContent(draft: Draft, rich: RichDraft, variant: VariantDraft): { draft: Draft; rich: RichDraft } {
  const hasButtons = variant.buttons.some((button) => button.title.trim());
  return {
    draft: {
      ...draft,
      title: variant.title || draft.title,
      body: variant.body || draft.body,
      url: variant.url || draft.url,
      icon: variant.icon || draft.icon,
    },
    rich: { ...rich, image: variant.image || rich.image, buttons: hasButtons ? variant.buttons : rich.buttons },
  };
}

/** Every URL of an alternative the API checks, by field id. */
export const variantUrls = (variant: VariantDraft, index: number): [string, string][] => [
  [variantFieldId(index, 'url'), variant.url],
  [variantFieldId(index, 'icon'), variant.icon],
  [variantFieldId(index, 'image'), variant.image],
  ...variant.buttons.map((button, i): [string, string] => [variantFieldId(index, `button-${i + 1}-url`), button.url]),
];

/** "Try on a sample first": the share in percent and the minutes, as typed. */
export interface SampleDraft {
  enabled: boolean;
  percent: string;
  minutes: string;
}

export const DEFAULT_SAMPLE: SampleDraft = { enabled: false, percent: '20', minutes: '60' };
export const SAMPLE_PERCENT = { min: MIN_SAMPLE * 100, max: MAX_SAMPLE * 100 };
export { MAX_WINNER_AFTER_MINUTES };

/** `sample` and `winnerAfterMinutes` (both or neither), or what is wrong with the figures typed. */
export function samplePayloadOf(
  sample: SampleDraft,
): { sample?: number; winnerAfterMinutes?: number } | { problem: Problem; field: 'sample-percent' | 'sample-minutes' } {
  if (!sample.enabled) return {};
  const percent = Number(sample.percent);
  if (
    !sample.percent.trim() ||
    !Number.isFinite(percent) ||
    percent < SAMPLE_PERCENT.min ||
    percent > SAMPLE_PERCENT.max
  )
    return { field: 'sample-percent', problem: { key: 'send.sampleRange', values: SAMPLE_PERCENT } };
  const minutes = Number(sample.minutes);
  if (!Number.isInteger(minutes) || minutes < 1 || minutes > MAX_WINNER_AFTER_MINUTES)
    return { field: 'sample-minutes', problem: { key: 'send.winnerRange', values: { max: MAX_WINNER_AFTER_MINUTES } } };
  // Percent to a share, without float noise (12.5 % is 0.125).
  return { sample: Math.round(percent * 100) / 10_000, winnerAfterMinutes: minutes };
}
