import {
  MAX_SCHEDULE_AHEAD_DAYS,
  MAX_SCHEDULE_AHEAD_MS,
  MAX_THROTTLE_PER_MINUTE,
  MIN_THROTTLE_PER_MINUTE,
} from '@webpush/plans';
import type { Problem } from '../../components/field.js';
import { tagPairOf } from '../../components/tag-pair.js';

/*
 * The send form's state as the API takes it, and the checks the browser can make before asking: the
 * limits are the API's own (@webpush/plans), never typed here again.
 */

/** The plain fields of the send form: what a notification says and where it leads. */
export interface Draft {
  title: string;
  body: string;
  url: string;
  icon: string;
  badge: string;
}
export const EMPTY_DRAFT: Draft = { title: '', body: '', url: '', icon: '', badge: '' };

/** What the request carries: title and body always, url/icon/badge only when filled in. */
export function payloadOf(draft: Draft) {
  const payload: { title: string; body: string; url?: string; icon?: string; badge?: string } = {
    title: draft.title,
    body: draft.body,
  };
  if (draft.url) payload.url = draft.url;
  if (draft.icon) payload.icon = draft.icon;
  if (draft.badge) payload.badge = draft.badge;
  return payload;
}

/** Exactly the API's rule: UTF-8 bytes of JSON.stringify of the present fields, escapes included. */
export const payloadBytes = (draft: Draft) => new TextEncoder().encode(JSON.stringify(payloadOf(draft))).length;

export type Audience = 'all' | 'uids' | 'tags' | 'segment' | 'expression';

/** uids separated by commas or new lines; blanks dropped, duplicates kept once. */
export const uidsOf = (text: string) => [
  ...new Set(
    text
      .split(/[\n,]/)
      .map((uid) => uid.trim())
      .filter(Boolean),
  ),
];

/** `key=value` pairs (`key:value` too), one a line or comma separated: the tags, or the first line that is not a pair. */
export function tagsOf(text: string): { tags: Record<string, string> } | { problem: Problem } {
  const tags: Record<string, string> = {};
  for (const line of text.split(/[\n,]/)) {
    const pair = line.trim();
    if (!pair) continue;
    const parsed = tagPairOf(pair);
    if (!parsed) return { problem: { key: 'send.tagsNotPair', values: { pair } } };
    tags[parsed.key] = parsed.value;
  }
  if (Object.keys(tags).length === 0) return { problem: { key: 'send.tagsNone' } };
  return { tags };
}

/** A datetime-local value (the browser's time zone) as RFC 3339 UTC, or why it cannot be used. */
export function sendAtOf(local: string, now = Date.now()): { sendAt: string } | { problem: Problem } {
  const when = new Date(local);
  if (!local || Number.isNaN(when.getTime())) return { problem: { key: 'send.whenMissing' } };
  if (when.getTime() <= now) return { problem: { key: 'send.whenPast' } };
  if (when.getTime() > now + MAX_SCHEDULE_AHEAD_MS)
    return { problem: { key: 'send.whenFar', values: { days: MAX_SCHEDULE_AHEAD_DAYS } } };
  return { sendAt: when.toISOString() };
}

/** A datetime-local value `minutes` from now, in the browser's time zone. */
export const localIn = (minutes: number) => {
  const when = new Date(Date.now() + minutes * 60_000);
  return new Date(when.getTime() - when.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
};

/** When a send goes: at once, at one moment (`sendAt`), or at a time of day in each subscriber's zone (`localTime`). */
export type Timing = 'now' | 'later' | 'local';

/** A time input's value (`HH:MM`, 24-hour) as `localTime`, or why it cannot be used. */
export function localTimeOf(value: string): { localTime: string } | { problem: Problem } {
  if (!/^([01][0-9]|2[0-3]):[0-5][0-9]$/.test(value)) return { problem: { key: 'send.localTimeMissing' } };
  return { localTime: value };
}

export const THROTTLE_RANGE = { min: MIN_THROTTLE_PER_MINUTE, max: MAX_THROTTLE_PER_MINUTE };

/** Pushes a minute as typed, as `throttle`, or why it cannot be used. */
export function throttleOf(text: string): { throttle: { perMinute: number } } | { problem: Problem } {
  const perMinute = Number(text);
  if (!text.trim() || !Number.isInteger(perMinute) || perMinute < THROTTLE_RANGE.min || perMinute > THROTTLE_RANGE.max)
    return { problem: { key: 'send.throttleRange', values: THROTTLE_RANGE } };
  return { throttle: { perMinute } };
}
