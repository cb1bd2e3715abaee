import { MAX_TARGET_UIDS } from '@webpush/plans';
import type { ReactNode } from 'react';
import { Link } from 'react-router';
import { type MessageKey, useI18n } from '../../i18n/index.js';
import type { AppWithStats } from '../apps/use-apps.js';
import { SegmentBuilder } from '../segments/segment-builder.js';
import type { Group } from '../segments/segment-tree.js';
import { useSegments } from '../segments/use-segments.js';
import type { Audience } from './send-draft.js';

export type AudienceProblemField = 'uids' | 'tags' | 'segment-id' | 'segment';

/** Who a send goes to, as typed. */
export interface AudienceDraft {
  audience: Audience;
  uidsText: string;
  tagsText: string;
  /** A saved segment's id (`segment`). */
  segmentId: string;
  /** The conditions built here (`expression`). */
  tree: Group;
}

/** The audience radios and the field of the one chosen. */
export function AudienceFields({
  app,
  draft,
  onChange,
  problemOf,
  invalid,
}: {
  app: AppWithStats;
  draft: AudienceDraft;
  onChange: (draft: AudienceDraft) => void;
  problemOf: (field: AudienceProblemField) => ReactNode;
  invalid: (field: AudienceProblemField) => boolean;
}) {
  const { t, plural, rich, number } = useI18n();
  const segments = useSegments(app.id);
  const audiences: { value: Audience; label: MessageKey; hint: string }[] = [
    { value: 'all', label: 'send.all', hint: plural('send.allHint.other', app.stats.activeSubscribers) },
    { value: 'segment', label: 'send.savedSegment', hint: t('send.savedSegmentHint') },
    { value: 'expression', label: 'send.expression', hint: t('send.expressionHint') },
    { value: 'uids', label: 'send.uids', hint: t('send.uidsHint', { max: MAX_TARGET_UIDS }) },
    { value: 'tags', label: 'send.tags', hint: t('send.tagsHint') },
  ];
  const saved = segments.data?.segments ?? [];
  return (
    <>
      <fieldset className="scopes">
        <legend>{t('send.audience')}</legend>
        {audiences.map((option) => (
          <label key={option.value} className="scope-option">
            <input
              type="radio"
              name="audience"
              value={option.value}
              checked={draft.audience === option.value}
              onChange={() => onChange({ ...draft, audience: option.value })}
            />
            <span>
              <strong>{t(option.label)}</strong>
              <span className="hint">{option.hint}</span>
            </span>
          </label>
        ))}
      </fieldset>
      {draft.audience === 'all' && app.stats.activeSubscribers === 0 && (
        <p className="hint warning send-warning" data-testid="no-subscribers">
          {rich('send.noneYet', { tryIt: <Link to={`/apps/${app.id}/try`}>{t('send.tryItLink')}</Link> })}
        </p>
      )}
      {draft.audience === 'segment' && (
        <div className="field">
          <label htmlFor="segment-id">{t('send.savedSegment')}</label>
          <select
            id="segment-id"
            name="segment-id"
            required
            value={draft.segmentId}
            onChange={(event) => onChange({ ...draft, segmentId: event.target.value })}
            aria-invalid={invalid('segment-id') ? true : undefined}
            aria-describedby="segment-id-hint segment-id-error"
          >
            <option value="">{segments.isPending ? t('common.loading') : t('send.chooseSegment')}</option>
            {saved.map((segment) => (
              <option key={segment.id} value={segment.id}>
                {t('send.segmentOption', { name: segment.name, count: number(segment.count) })}
              </option>
            ))}
          </select>
          <p className="hint" id="segment-id-hint">
            {rich(saved.length === 0 && !segments.isPending ? 'send.noSegments' : 'send.segmentsLink', {
              segments: <Link to={`/apps/${app.id}/segments`}>{t('send.segmentsPage')}</Link>,
            })}
          </p>
          {problemOf('segment-id')}
        </div>
      )}
      {draft.audience === 'expression' && (
        <div className="field">
          <SegmentBuilder
            appId={app.id}
            idPrefix="send-segment"
            value={draft.tree}
            onChange={(tree) => onChange({ ...draft, tree })}
          />
          {problemOf('segment')}
        </div>
      )}
      {draft.audience === 'uids' && (
        <div className="field">
          <label htmlFor="uids">{t('send.uids')}</label>
          <textarea
            id="uids"
            name="uids"
            rows={3}
            value={draft.uidsText}
            onChange={(event) => onChange({ ...draft, uidsText: event.target.value })}
            aria-invalid={invalid('uids') ? true : undefined}
            aria-describedby="uids-hint uids-error"
          />
          <p className="hint" id="uids-hint">
            {t('send.uidsSeparator')}
          </p>
          {problemOf('uids')}
        </div>
      )}
      {draft.audience === 'tags' && (
        <div className="field">
          <label htmlFor="tags">{t('send.tags')}</label>
          <textarea
            id="tags"
            name="tags"
            rows={3}
            placeholder={'lang=ja\nplan=pro'}
            value={draft.tagsText}
            onChange={(event) => onChange({ ...draft, tagsText: event.target.value })}
            aria-invalid={invalid('tags') ? true : undefined}
            aria-describedby="tags-hint tags-error"
          />
          <p className="hint" id="tags-hint">
            {rich('send.tagsFormat', { pair: <code>key=value</code> })}
          </p>
          {problemOf('tags')}
        </div>
      )}
    </>
  );
}
