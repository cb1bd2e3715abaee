import {
  MAX_SEGMENT_DEPTH,
  MAX_SEGMENT_IN_VALUES,
  MAX_SEGMENT_LEAVES,
  MAX_SEGMENT_OPERANDS,
  MAX_SUBSCRIBED_WITHIN_DAYS,
  MAX_TARGET_UIDS,
} from '@webpush/plans';
import type { paths } from '../../api/openapi.js';
import type { Problem } from '../../components/field.js';
import { isLanguageTag } from '../../components/language-tag.js';

/*
 * The segment builder's state and the API's expression (docs/sending.md, "Segments"), both ways:
 * groups of conditions that match all, any, none or not all of their rows. The bounds are the API's
 * own (@webpush/plans); the builder finds what it would refuse before asking for a count.
 */

/** The expression as the API takes it. */
export type SegmentExpression = NonNullable<
  NonNullable<
    paths['/api/v1/apps/{appId}/notifications']['post']['requestBody']
  >['content']['application/json']['segment']
>;

/** What a condition looks at, and how. Each has a negated twin (`tagMissing` is `not tagHas`). */
export const CONDITION_KINDS = [
  'tagHas',
  'tagMissing',
  'tagEquals',
  'tagNotEquals',
  'tagIn',
  'tagNotIn',
  'language',
  'notLanguage',
  'timeZone',
  'notTimeZone',
  'subscribedWithin',
  'subscribedBefore',
  'uidIn',
  'uidNotIn',
] as const;
export type ConditionKind = (typeof CONDITION_KINDS)[number];

/** The subject of a condition: the first select of a row. */
export type ConditionSubject = 'tag' | 'language' | 'timeZone' | 'subscribed' | 'uid';
export const SUBJECT_KINDS: Record<ConditionSubject, ConditionKind[]> = {
  tag: ['tagHas', 'tagMissing', 'tagEquals', 'tagNotEquals', 'tagIn', 'tagNotIn'],
  language: ['language', 'notLanguage'],
  timeZone: ['timeZone', 'notTimeZone'],
  subscribed: ['subscribedWithin', 'subscribedBefore'],
  uid: ['uidIn', 'uidNotIn'],
};
export const subjectOf = (kind: ConditionKind): ConditionSubject =>
  (Object.keys(SUBJECT_KINDS) as ConditionSubject[]).find((subject) => SUBJECT_KINDS[subject].includes(kind)) ?? 'tag';

const NEGATED: Partial<Record<ConditionKind, ConditionKind>> = {
  tagHas: 'tagMissing',
  tagEquals: 'tagNotEquals',
  tagIn: 'tagNotIn',
  language: 'notLanguage',
  timeZone: 'notTimeZone',
  subscribedWithin: 'subscribedBefore',
  uidIn: 'uidNotIn',
};
const isNegated = (kind: ConditionKind) => !(kind in NEGATED);
const positiveOf = (kind: ConditionKind): ConditionKind =>
  (Object.keys(NEGATED) as ConditionKind[]).find((positive) => NEGATED[positive] === kind) ?? kind;

export interface Condition {
  type: 'condition';
  id: number;
  kind: ConditionKind;
  /** The tag's key (tag conditions only). */
  key: string;
  /** The value as typed: a tag value, a language, a zone, days, or a list (comma or line separated). */
  value: string;
}

/** How a group combines its rows: `and`, `or`, and their negations (`nor`: none of them, `nand`: not all). */
export type GroupMode = 'and' | 'or' | 'nor' | 'nand';
export const GROUP_MODES: GroupMode[] = ['and', 'or', 'nor', 'nand'];

export interface Group {
  type: 'group';
  id: number;
  mode: GroupMode;
  children: SegmentNode[];
}
export type SegmentNode = Condition | Group;

let lastId = 0;
const nextId = () => ++lastId;

export const newCondition = (kind: ConditionKind = 'tagEquals'): Condition => ({
  type: 'condition',
  id: nextId(),
  kind,
  key: '',
  value: '',
});
export const newGroup = (mode: GroupMode = 'and', children: SegmentNode[] = [newCondition()]): Group => ({
  type: 'group',
  id: nextId(),
  mode,
  children,
});

/** Groups inside the root the builder offers (the root is 0): deeper trees pass the API's depth rarely. */
export const MAX_GROUP_NESTING = 2;

/** Values of a list condition: separated by commas or new lines, blanks dropped, each once. */
export const listOf = (text: string) => [
  ...new Set(
    text
      .split(/[\n,]/)
      .map((value) => value.trim())
      .filter(Boolean),
  ),
];

const TAG_KEY = /^[A-Za-z0-9_.-]{1,64}$/;
const MAX_TAG_VALUE_LENGTH = 128;
const MAX_UID_LENGTH = 128;

/** A condition as the API takes it, or why it cannot be sent as typed. */
function leafOf(condition: Condition): { expression: SegmentExpression } | { problem: Problem } {
  const positive = positiveOf(condition.kind);
  const key = condition.key.trim();
  const value = condition.value.trim();
  let leaf: SegmentExpression;
  if (positive.startsWith('tag')) {
    if (!key) return { problem: { key: 'segments.needKey' } };
    if (!TAG_KEY.test(key)) return { problem: { key: 'segments.badKey', values: { key } } };
  }
  switch (positive) {
    case 'tagHas':
      leaf = { tag: key };
      break;
    case 'tagEquals':
      if (condition.value.length > MAX_TAG_VALUE_LENGTH)
        return { problem: { key: 'segments.valueTooLong', values: { max: MAX_TAG_VALUE_LENGTH } } };
      leaf = { tag: key, equals: condition.value };
      break;
    case 'tagIn': {
      const values = listOf(condition.value);
      if (values.length === 0) return { problem: { key: 'segments.needValues' } };
      if (values.length > MAX_SEGMENT_IN_VALUES)
        return { problem: { key: 'segments.tooManyValues', values: { max: MAX_SEGMENT_IN_VALUES } } };
      if (values.some((one) => one.length > MAX_TAG_VALUE_LENGTH))
        return { problem: { key: 'segments.valueTooLong', values: { max: MAX_TAG_VALUE_LENGTH } } };
      leaf = { tag: key, in: values };
      break;
    }
    case 'language':
      if (!value) return { problem: { key: 'segments.needLanguage' } };
      if (!isLanguageTag(value)) return { problem: { key: 'segments.badLanguage', values: { value } } };
      leaf = { language: value };
      break;
    case 'timeZone':
      if (!value) return { problem: { key: 'segments.needTimeZone' } };
      leaf = { timeZone: value };
      break;
    case 'subscribedWithin': {
      const days = Number(value);
      if (!value || !Number.isInteger(days) || days < 1 || days > MAX_SUBSCRIBED_WITHIN_DAYS)
        return { problem: { key: 'segments.badDays', values: { max: MAX_SUBSCRIBED_WITHIN_DAYS } } };
      leaf = { subscribedWithinDays: days };
      break;
    }
    default: {
      const uids = listOf(condition.value);
      if (uids.length === 0) return { problem: { key: 'segments.needUids' } };
      if (uids.length > MAX_TARGET_UIDS)
        return { problem: { key: 'segments.tooManyUids', values: { max: MAX_TARGET_UIDS } } };
      if (uids.some((uid) => uid.length > MAX_UID_LENGTH))
        return { problem: { key: 'segments.uidTooLong', values: { max: MAX_UID_LENGTH } } };
      leaf = { uid: uids };
    }
  }
  return { expression: isNegated(condition.kind) ? { not: leaf } : leaf };
}

export type Compiled =
  | { expression: SegmentExpression }
  /** `at`: the id of the row or group to show the problem next to. */
  | { problem: Problem; at: number };

/**
 * The tree as the API's expression, or the first thing it would refuse. A group of one row is
 * that row (no `and` of one), so the builder's groups cost depth only where they combine rows.
 */
export function compile(root: Group): Compiled {
  let leaves = 0;
  const walk = (node: SegmentNode): Compiled => {
    if (node.type === 'condition') {
      leaves++;
      const leaf = leafOf(node);
      return 'problem' in leaf ? { ...leaf, at: node.id } : leaf;
    }
    if (node.children.length === 0) return { problem: { key: 'segments.emptyGroup' }, at: node.id };
    if (node.children.length > MAX_SEGMENT_OPERANDS)
      return { problem: { key: 'segments.tooManyRows', values: { max: MAX_SEGMENT_OPERANDS } }, at: node.id };
    const operands: SegmentExpression[] = [];
    for (const child of node.children) {
      const compiled = walk(child);
      if ('problem' in compiled) return compiled;
      operands.push(compiled.expression);
    }
    const [only] = operands;
    const combined: SegmentExpression =
      operands.length === 1 && only
        ? only
        : node.mode === 'or' || node.mode === 'nor'
          ? { or: operands }
          : { and: operands };
    return { expression: node.mode === 'nor' || node.mode === 'nand' ? { not: combined } : combined };
  };
  const compiled = walk(root);
  if ('problem' in compiled) return compiled;
  if (leaves > MAX_SEGMENT_LEAVES)
    return { problem: { key: 'segments.tooManyLeaves', values: { max: MAX_SEGMENT_LEAVES } }, at: root.id };
  if (depthOf(compiled.expression) > MAX_SEGMENT_DEPTH)
    return { problem: { key: 'segments.tooDeep', values: { max: MAX_SEGMENT_DEPTH } }, at: root.id };
  return compiled;
}

/** Levels of and/or/not inside one another, as the API counts them. */
export function depthOf(expression: SegmentExpression): number {
  if ('not' in expression) return 1 + depthOf(expression.not as SegmentExpression);
  if ('and' in expression || 'or' in expression) {
    const operands = ('and' in expression ? expression.and : expression.or) as SegmentExpression[];
    return 1 + Math.max(0, ...operands.map(depthOf));
  }
  return 0;
}

/** A saved expression in the builder's rows: the inverse of `compile` (a lone row becomes a group of one). */
export function treeOf(expression: SegmentExpression): Group {
  const node = nodeOf(expression);
  return node.type === 'group' ? node : newGroup('and', [node]);
}

function nodeOf(expression: SegmentExpression): SegmentNode {
  if ('not' in expression) {
    const inner = nodeOf(expression.not as SegmentExpression);
    if (inner.type === 'condition') {
      const negated = NEGATED[inner.kind];
      // A double negation is the condition itself.
      return { ...inner, kind: negated ?? positiveOf(inner.kind) };
    }
    const flipped: Record<GroupMode, GroupMode> = { and: 'nand', or: 'nor', nor: 'or', nand: 'and' };
    return { ...inner, mode: flipped[inner.mode] };
  }
  if ('and' in expression) return newGroup('and', (expression.and as SegmentExpression[]).map(nodeOf));
  if ('or' in expression) return newGroup('or', (expression.or as SegmentExpression[]).map(nodeOf));
  const condition = newCondition();
  if ('tag' in expression) {
    condition.key = expression.tag;
    if ('equals' in expression) return { ...condition, kind: 'tagEquals', value: expression.equals };
    if ('in' in expression) return { ...condition, kind: 'tagIn', value: expression.in.join(', ') };
    return { ...condition, kind: 'tagHas' };
  }
  if ('language' in expression) return { ...condition, kind: 'language', value: expression.language };
  if ('timeZone' in expression) return { ...condition, kind: 'timeZone', value: expression.timeZone };
  if ('subscribedWithinDays' in expression)
    return { ...condition, kind: 'subscribedWithin', value: String(expression.subscribedWithinDays) };
  return { ...condition, kind: 'uidIn', value: expression.uid.join(', ') };
}

/** The group `id` within `root`, changed by `change`; every other node kept as it is. */
export function updateNode(root: Group, id: number, change: (node: SegmentNode) => SegmentNode | null): Group {
  const walk = (node: SegmentNode): SegmentNode | null => {
    if (node.id === id) return change(node);
    if (node.type === 'condition') return node;
    return { ...node, children: node.children.map(walk).filter((child): child is SegmentNode => child !== null) };
  };
  return (walk(root) as Group | null) ?? newGroup();
}

/** A saved expression on one line, for the list: `plan = pro AND NOT (country in [US, CA])`. */
export function summaryOf(expression: SegmentExpression): string {
  const inner = (node: SegmentExpression): string => {
    const text = summaryOf(node);
    return 'and' in node || 'or' in node ? `(${text})` : text;
  };
  if ('not' in expression) return `NOT ${inner(expression.not as SegmentExpression)}`;
  if ('and' in expression) return (expression.and as SegmentExpression[]).map(inner).join(' AND ');
  if ('or' in expression) return (expression.or as SegmentExpression[]).map(inner).join(' OR ');
  if ('tag' in expression) {
    if ('equals' in expression) return `${expression.tag} = ${expression.equals}`;
    if ('in' in expression) return `${expression.tag} in [${expression.in.join(', ')}]`;
    return `has ${expression.tag}`;
  }
  if ('language' in expression) return `language ${expression.language}`;
  if ('timeZone' in expression) return `timeZone ${expression.timeZone}`;
  if ('subscribedWithinDays' in expression) return `subscribed ≤ ${expression.subscribedWithinDays}d`;
  return `uid in [${expression.uid.join(', ')}]`;
}
