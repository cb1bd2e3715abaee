import { MAX_SEGMENT_OPERANDS, MAX_SUBSCRIBED_WITHIN_DAYS } from '@webpush/plans';
import { ErrorMessage } from '../../components/error-panel.js';
import { LanguageTagList } from '../../components/language-tag-list.js';
import { TimeZoneSelect } from '../../components/time-zones.js';
import { type MessageKey, useI18n } from '../../i18n/index.js';
import {
  type Compiled,
  type Condition,
  type ConditionSubject,
  compile,
  GROUP_MODES,
  type Group,
  MAX_GROUP_NESTING,
  newCondition,
  newGroup,
  type SegmentNode,
  SUBJECT_KINDS,
  subjectOf,
  updateNode,
} from './segment-tree.js';
import { useSegmentCount } from './use-segments.js';
import './segments.css';

/** The first kind of each subject: what a row becomes when its subject changes. */
const FIRST_KIND = {
  tag: 'tagEquals',
  language: 'language',
  timeZone: 'timeZone',
  subscribed: 'subscribedWithin',
  uid: 'uidIn',
} as const;

interface RowProps {
  /** Prefix of the ids of the controls, so two builders on a page do not share ids. */
  idPrefix: string;
  /** Each row's and group's number through the whole builder, for the accessible names of its controls. */
  numbers: Map<number, number>;
  compiled: Compiled;
  onChange: (id: number, change: (node: SegmentNode) => SegmentNode | null) => void;
}

function ConditionRow({ condition, idPrefix, numbers, compiled, onChange }: RowProps & { condition: Condition }) {
  const { t } = useI18n();
  const number = numbers.get(condition.id) ?? 0;
  const id = (part: string) => `${idPrefix}-${condition.id}-${part}`;
  const subject = subjectOf(condition.kind);
  const set = (change: Partial<Condition>) => onChange(condition.id, (node) => ({ ...node, ...change }) as Condition);
  // A row not yet typed into says nothing: the count line asks for the conditions to be completed.
  const untouched = !condition.key && !condition.value;
  const problem = 'problem' in compiled && compiled.at === condition.id && !untouched ? compiled.problem : null;
  const kind = condition.kind;
  const valueLabel = t('segments.valueLabel', { number });
  const value = (() => {
    switch (kind) {
      case 'tagHas':
      case 'tagMissing':
        return null;
      case 'timeZone':
      case 'notTimeZone':
        return (
          <TimeZoneSelect
            id={id('value')}
            aria-label={valueLabel}
            value={condition.value}
            onChange={(event) => set({ value: event.target.value })}
          />
        );
      case 'language':
      case 'notLanguage':
        return (
          <input
            id={id('value')}
            aria-label={valueLabel}
            list={`${idPrefix}-languages`}
            placeholder="ja"
            value={condition.value}
            onChange={(event) => set({ value: event.target.value })}
          />
        );
      case 'subscribedWithin':
      case 'subscribedBefore':
        return (
          <span className="segment-days">
            <input
              id={id('value')}
              aria-label={valueLabel}
              type="number"
              inputMode="numeric"
              min={1}
              max={MAX_SUBSCRIBED_WITHIN_DAYS}
              value={condition.value}
              onChange={(event) => set({ value: event.target.value })}
            />
            <span aria-hidden="true">{t('segments.days')}</span>
          </span>
        );
      default:
        return (
          <input
            id={id('value')}
            aria-label={valueLabel}
            placeholder={kind.startsWith('tag') && kind !== 'tagEquals' && kind !== 'tagNotEquals' ? 'US, CA' : ''}
            value={condition.value}
            onChange={(event) => set({ value: event.target.value })}
          />
        );
    }
  })();
  return (
    <li className="segment-row" data-testid="segment-condition">
      <div className="segment-controls">
        <select
          id={id('subject')}
          aria-label={t('segments.subjectLabel', { number })}
          value={subject}
          onChange={(event) => {
            const next = event.target.value as ConditionSubject;
            set({ kind: FIRST_KIND[next], value: next === 'subscribed' ? '30' : next === 'timeZone' ? 'UTC' : '' });
          }}
        >
          {(Object.keys(SUBJECT_KINDS) as ConditionSubject[]).map((option) => (
            <option key={option} value={option}>
              {t(`segments.subject.${option}` as MessageKey)}
            </option>
          ))}
        </select>
        {subject === 'tag' && (
          <input
            id={id('key')}
            aria-label={t('segments.keyLabel', { number })}
            placeholder={t('segments.keyPlaceholder')}
            value={condition.key}
            onChange={(event) => set({ key: event.target.value })}
          />
        )}
        <select
          id={id('kind')}
          aria-label={t('segments.kindLabel', { number })}
          value={kind}
          onChange={(event) => set({ kind: event.target.value as Condition['kind'] })}
        >
          {SUBJECT_KINDS[subject].map((option) => (
            <option key={option} value={option}>
              {t(`segments.kind.${option}` as MessageKey)}
            </option>
          ))}
        </select>
        {value}
        <button
          type="button"
          className="button button-small segment-remove"
          aria-label={t('segments.removeCondition', { number })}
          onClick={() => onChange(condition.id, () => null)}
        >
          ×
        </button>
      </div>
      {problem && (
        <p className="error-message" role="alert">
          {t(problem.key, problem.values)}
        </p>
      )}
    </li>
  );
}

function GroupEditor({
  group,
  depth,
  idPrefix,
  numbers,
  compiled,
  onChange,
}: RowProps & { group: Group; depth: number }) {
  const { t } = useI18n();
  const number = numbers.get(group.id) ?? 0;
  const problem = 'problem' in compiled && compiled.at === group.id ? compiled.problem : null;
  const add = (node: SegmentNode) =>
    onChange(group.id, (current) => ({ ...current, children: [...(current as Group).children, node] }) as Group);
  const full = group.children.length >= MAX_SEGMENT_OPERANDS;
  return (
    <fieldset className={depth === 0 ? 'segment-group segment-root' : 'segment-group'} data-testid="segment-group">
      <legend className="visually-hidden">
        {depth === 0 ? t('segments.rootLegend') : t('segments.groupLegend', { number })}
      </legend>
      <div className="segment-group-head">
        <label htmlFor={`${idPrefix}-${group.id}-mode`}>{t('segments.match')}</label>
        <select
          id={`${idPrefix}-${group.id}-mode`}
          value={group.mode}
          onChange={(event) => onChange(group.id, (node) => ({ ...node, mode: event.target.value as Group['mode'] }))}
        >
          {GROUP_MODES.map((mode) => (
            <option key={mode} value={mode}>
              {t(`segments.mode.${mode}` as MessageKey)}
            </option>
          ))}
        </select>
        {depth > 0 && (
          <button
            type="button"
            className="button button-small button-danger-outline"
            aria-label={t('segments.removeGroupLabel', { number })}
            onClick={() => onChange(group.id, () => null)}
          >
            {t('segments.removeGroup')}
          </button>
        )}
      </div>
      <ol className="segment-rows">
        {group.children.map((child) =>
          child.type === 'condition' ? (
            <ConditionRow
              key={child.id}
              condition={child}
              idPrefix={idPrefix}
              numbers={numbers}
              compiled={compiled}
              onChange={onChange}
            />
          ) : (
            <li key={child.id}>
              <GroupEditor
                group={child}
                depth={depth + 1}
                idPrefix={idPrefix}
                numbers={numbers}
                compiled={compiled}
                onChange={onChange}
              />
            </li>
          ),
        )}
      </ol>
      {problem && (
        <p className="error-message" role="alert">
          {t(problem.key, problem.values)}
        </p>
      )}
      <div className="segment-add">
        <button type="button" className="button button-small" disabled={full} onClick={() => add(newCondition())}>
          {t('segments.addCondition')}
        </button>
        {depth < MAX_GROUP_NESTING && (
          <button
            type="button"
            className="button button-small"
            disabled={full}
            onClick={() => add(newGroup('or', [newCondition()]))}
          >
            {t('segments.addGroup')}
          </button>
        )}
      </div>
    </fieldset>
  );
}

/** Rows and groups numbered in reading order (the root group is 0, its first row 1). */
function numbersOf(root: Group): Map<number, number> {
  const numbers = new Map<number, number>();
  const walk = (node: SegmentNode) => {
    numbers.set(node.id, numbers.size);
    if (node.type === 'group') node.children.forEach(walk);
  };
  walk(root);
  return numbers;
}

/**
 * Conditions in groups (all / any / none / not all of them), and how many active subscribers they
 * match now: counted by the API once the typing stops, as a send would target them.
 */
export function SegmentBuilder({
  appId,
  value,
  onChange,
  idPrefix = 'segment',
}: {
  appId: string;
  value: Group;
  onChange: (next: Group) => void;
  idPrefix?: string;
}) {
  const { t, plural, language } = useI18n();
  const compiled = compile(value);
  const count = useSegmentCount(appId, 'expression' in compiled ? compiled.expression : null);
  const change = (id: number, update: (node: SegmentNode) => SegmentNode | null) =>
    onChange(updateNode(value, id, update));
  return (
    <div className="segment-builder">
      <LanguageTagList id={`${idPrefix}-languages`} language={language} />
      <GroupEditor
        group={value}
        depth={0}
        idPrefix={idPrefix}
        numbers={numbersOf(value)}
        compiled={compiled}
        onChange={change}
      />
      <p
        className="segment-count"
        aria-live="polite"
        data-testid="segment-count"
        data-count={'problem' in compiled || count.waiting || !count.data ? undefined : count.data.count}
      >
        {'problem' in compiled
          ? t('segments.countIncomplete')
          : count.data
            ? plural('segments.count.other', count.data.count)
            : t('segments.counting')}
        {count.waiting && 'expression' in compiled && count.data && (
          <span className="muted"> {t('segments.recounting')}</span>
        )}
      </p>
      {'expression' in compiled && <ErrorMessage error={count.error} />}
    </div>
  );
}
