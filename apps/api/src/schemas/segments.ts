import type { SegmentExpression } from '@webpush/db';
import { AppError } from '@webpush/errors';
import {
  MAX_SEGMENT_DEPTH,
  MAX_SEGMENT_IN_VALUES,
  MAX_SEGMENT_LEAVES,
  MAX_SEGMENT_NAME_LENGTH,
  MAX_SEGMENT_OPERANDS,
  MAX_SUBSCRIBED_WITHIN_DAYS,
  MAX_TARGET_UIDS,
} from '@webpush/plans';
import { type Static, Type } from 'typebox';
import { Compile } from 'typebox/compile';
import { canonicalTimeZone } from '../time-zone.js';
import { LanguageTag, TimeZoneName, Uid } from './subscriptions.js';

// docs/sending.md, "Segments": and/or/not inside one another at most 5 deep, at most 50 leaves.
const MAX_OPERANDS = MAX_SEGMENT_OPERANDS;
const MAX_IN_VALUES = MAX_SEGMENT_IN_VALUES;

const TagKey = Type.String({ pattern: '^[A-Za-z0-9_.-]{1,64}$', description: 'A tag key' });
const TagValue = Type.String({ maxLength: 128 });
/** An operand of and/or/not: each is checked against `SegmentNode` in turn (see `checkSegment`). */
const Operand = Type.Object({}, { additionalProperties: true, description: 'A segment expression' });
const exact = { additionalProperties: false } as const;

/**
 * One node of a segment expression: a leaf, or and/or/not over further nodes. The schema checks a
 * node; `checkSegment` walks the tree, checks every node with it and counts depth and leaves, so
 * an expression of any size is refused before any query, and no validator recurses without bound.
 */
export const SegmentNode = Type.Union(
  [
    Type.Object({ tag: TagKey }, { ...exact, description: 'Has the tag, whatever its value' }),
    Type.Object({ tag: TagKey, equals: TagValue }, { ...exact, description: 'The tag has this value' }),
    Type.Object(
      { tag: TagKey, in: Type.Array(TagValue, { minItems: 1, maxItems: MAX_IN_VALUES }) },
      { ...exact, description: `The tag has one of these values (1–${MAX_IN_VALUES})` },
    ),
    Type.Object(
      { uid: Type.Array(Uid('A user id'), { minItems: 1, maxItems: MAX_TARGET_UIDS }) },
      { ...exact, description: `Carries one of these uids (1–${MAX_TARGET_UIDS})` },
    ),
    Type.Object(
      { language: LanguageTag('The language is this tag or starts with it and `-` (`ja` matches `ja-JP`)') },
      exact,
    ),
    Type.Object({ timeZone: TimeZoneName('The subscription’s IANA time zone') }, exact),
    Type.Object(
      { subscribedWithinDays: Type.Integer({ minimum: 1, maximum: MAX_SUBSCRIBED_WITHIN_DAYS }) },
      { ...exact, description: 'Subscribed in the last n × 24 hours' },
    ),
    Type.Object({ and: Type.Array(Operand, { minItems: 1, maxItems: MAX_OPERANDS }) }, exact),
    Type.Object({ or: Type.Array(Operand, { minItems: 1, maxItems: MAX_OPERANDS }) }, exact),
    Type.Object({ not: Operand }, exact),
  ],
  {
    description: `A boolean expression over the app's active subscriptions (docs/sending.md): at most ${MAX_SEGMENT_DEPTH} levels of and/or/not, ${MAX_SEGMENT_LEAVES} leaves`,
    examples: [{ and: [{ tag: 'plan', equals: 'pro' }, { not: { tag: 'country', in: ['US'] } }] }],
  },
);

const nodeValidator = Compile(SegmentNode);

/**
 * The expression, checked whole (every node's shape, at most 5 levels of and/or/not, at most 50
 * leaves, every time zone known to `Intl`) and with its time zones named as subscriptions store
 * them; INVALID_INPUT otherwise. Runs before any query.
 */
export function checkSegment(input: unknown): SegmentExpression {
  let leaves = 0;
  const walk = (node: unknown, depth: number): SegmentExpression => {
    if (!nodeValidator.Check(node)) throw new AppError('INVALID_INPUT');
    const checked = node as SegmentExpression;
    if ('and' in checked || 'or' in checked || 'not' in checked) {
      if (depth >= MAX_SEGMENT_DEPTH) throw new AppError('INVALID_INPUT');
      if ('not' in checked) return { not: walk(checked.not, depth + 1) };
      if ('and' in checked) return { and: checked.and.map((operand) => walk(operand, depth + 1)) };
      return { or: checked.or.map((operand) => walk(operand, depth + 1)) };
    }
    if (++leaves > MAX_SEGMENT_LEAVES) throw new AppError('INVALID_INPUT');
    if ('timeZone' in checked) return { timeZone: canonicalTimeZone(checked.timeZone) };
    return checked;
  };
  return walk(input, 0);
}

export const SegmentName = Type.String({
  minLength: 1,
  maxLength: MAX_SEGMENT_NAME_LENGTH,
  description: 'A name for the segment',
});

export const CreateSegmentBody = Type.Object({ name: SegmentName, segment: SegmentNode });
export const UpdateSegmentBody = Type.Object(
  { name: Type.Optional(SegmentName), segment: Type.Optional(SegmentNode) },
  { description: 'What changes: the name, the expression, or both (neither: 400 MISSING_FIELDS)' },
);
export const CountSegmentBody = Type.Object({ segment: SegmentNode });

const SavedSegmentSchema = Type.Object({
  id: Type.String({ format: 'uuid' }),
  name: Type.String(),
  segment: Type.Object({}, { additionalProperties: true, description: 'The expression, as saved' }),
  createdAt: Type.String({ format: 'date-time' }),
});

export const SegmentResponse = Type.Object({ segment: SavedSegmentSchema });
export const SegmentListResponse = Type.Object({
  segments: Type.Array(
    Type.Object({
      ...SavedSegmentSchema.properties,
      count: Type.Integer({ description: 'The active subscriptions it matches now' }),
    }),
    { description: 'Oldest first' },
  ),
});
export const SegmentCountResponse = Type.Object({
  count: Type.Integer({ description: 'What a send to this segment would target now' }),
});
export const SegmentParams = Type.Object({
  appId: Type.String({ description: 'App id (uuid)' }),
  segmentId: Type.String({ description: 'Segment id (uuid)' }),
});
export type CreateSegmentBody = Static<typeof CreateSegmentBody>;
