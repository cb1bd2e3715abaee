import { MAX_SCHEDULE_AHEAD_DAYS } from '@webpush/plans';
import type { ReactNode } from 'react';
import { type MessageKey, useI18n } from '../../i18n/index.js';
import { localIn, THROTTLE_RANGE, type Timing } from './send-draft.js';

export type TimingProblemField = 'send-at' | 'local-time' | 'throttle';

export interface TimingDraft {
  timing: Timing;
  /** A datetime-local value, for `later`. */
  when: string;
  /** `HH:MM`, for `local`. */
  localTime: string;
  throttled: boolean;
  perMinute: string;
}

export const DEFAULT_TIMING: Omit<TimingDraft, 'when'> = {
  timing: 'now',
  localTime: '09:00',
  throttled: false,
  perMinute: '1000',
};

const TIMINGS: { value: Timing; label: MessageKey }[] = [
  { value: 'now', label: 'send.now' },
  { value: 'later', label: 'send.later' },
  { value: 'local', label: 'send.localTime' },
];

/** When the send goes (now, at a moment, at each subscriber's local time) and how fast (throttle). */
export function TimingFields({
  draft,
  onChange,
  appTimeZone,
  problemOf,
  invalid,
}: {
  draft: TimingDraft;
  onChange: (draft: TimingDraft) => void;
  /** The zone of subscribers who have none. */
  appTimeZone: string;
  problemOf: (field: TimingProblemField) => ReactNode;
  invalid: (field: TimingProblemField) => boolean;
}) {
  const { t } = useI18n();
  const hints: Record<Timing, string> = {
    now: t('send.nowHint'),
    later: t('send.laterHint', { days: MAX_SCHEDULE_AHEAD_DAYS }),
    local: t('send.localTimeHint', { zone: appTimeZone }),
  };
  return (
    <>
      <fieldset className="scopes">
        <legend>{t('send.when')}</legend>
        {TIMINGS.map((option) => (
          <label key={option.value} className="scope-option">
            <input
              type="radio"
              name="timing"
              value={option.value}
              checked={draft.timing === option.value}
              onChange={() => onChange({ ...draft, timing: option.value })}
            />
            <span>
              <strong>{t(option.label)}</strong>
              <span className="hint">{hints[option.value]}</span>
            </span>
          </label>
        ))}
      </fieldset>
      {draft.timing === 'later' && (
        <div className="field">
          <label htmlFor="send-at">{t('send.sendAt')}</label>
          <input
            id="send-at"
            name="send-at"
            type="datetime-local"
            required
            min={localIn(1)}
            max={localIn(MAX_SCHEDULE_AHEAD_DAYS * 24 * 60)}
            value={draft.when}
            onChange={(event) => onChange({ ...draft, when: event.target.value })}
            aria-invalid={invalid('send-at') ? true : undefined}
            aria-describedby="send-at-error"
          />
          {problemOf('send-at')}
        </div>
      )}
      {draft.timing === 'local' && (
        <div className="field">
          <label htmlFor="local-time">{t('send.localTimeLabel')}</label>
          <input
            id="local-time"
            name="local-time"
            type="time"
            required
            value={draft.localTime}
            onChange={(event) => onChange({ ...draft, localTime: event.target.value })}
            aria-invalid={invalid('local-time') ? true : undefined}
            aria-describedby="local-time-error"
          />
          {problemOf('local-time')}
        </div>
      )}
      <label className="scope-option throttle-option">
        <input
          id="throttled"
          type="checkbox"
          checked={draft.throttled}
          onChange={(event) => onChange({ ...draft, throttled: event.target.checked })}
        />
        <span>
          <strong>{t('send.throttle')}</strong>
          <span className="hint">{t('send.throttleHint')}</span>
        </span>
      </label>
      {draft.throttled && (
        <div className="field throttle-field">
          <label htmlFor="throttle">{t('send.perMinute')}</label>
          <input
            id="throttle"
            name="throttle"
            type="number"
            inputMode="numeric"
            required
            min={THROTTLE_RANGE.min}
            max={THROTTLE_RANGE.max}
            step={1}
            value={draft.perMinute}
            onChange={(event) => onChange({ ...draft, perMinute: event.target.value })}
            aria-invalid={invalid('throttle') ? true : undefined}
            aria-describedby="throttle-hint throttle-error"
          />
          <p className="hint" id="throttle-hint">
            {t('send.perMinuteHint', THROTTLE_RANGE)}
          </p>
          {problemOf('throttle')}
        </div>
      )}
    </>
  );
}
