import t from 'tap';
import {
  compile,
  depthOf,
  type Group,
  newCondition,
  newGroup,
  type SegmentExpression,
  summaryOf,
  treeOf,
} from '../../src/features/segments/segment-tree.js';

const condition = (kind: Parameters<typeof newCondition>[0], key: string, value: string) => ({
  ...newCondition(kind),
  key,
  value,
});
const expressionOf = (root: Group) => {
  const compiled = compile(root);
  if ('problem' in compiled) throw new Error(`not compiled: ${compiled.problem.key}`);
  return compiled.expression;
};

t.test('rows and groups compile to the API’s expression; a group of one row is that row', async (t) => {
  t.same(expressionOf(newGroup('and', [condition('tagEquals', 'plan', 'pro')])), { tag: 'plan', equals: 'pro' });
  t.same(
    expressionOf(
      newGroup('and', [
        condition('tagEquals', 'plan', 'pro'),
        condition('tagNotIn', 'country', 'US, CA,US'),
        newGroup('or', [condition('language', '', ' ja '), condition('timeZone', '', 'Asia/Tokyo')]),
        condition('subscribedWithin', '', '30'),
      ]),
    ),
    {
      and: [
        { tag: 'plan', equals: 'pro' },
        { not: { tag: 'country', in: ['US', 'CA'] } },
        { or: [{ language: 'ja' }, { timeZone: 'Asia/Tokyo' }] },
        { subscribedWithinDays: 30 },
      ],
    },
  );
  t.same(
    expressionOf(newGroup('nor', [condition('tagHas', 'beta', ''), condition('uidIn', '', 'a\nb')])),
    { not: { or: [{ tag: 'beta' }, { uid: ['a', 'b'] }] } },
    'none of these',
  );
  t.same(expressionOf(newGroup('nand', [condition('tagMissing', 'beta', '')])), { not: { not: { tag: 'beta' } } });
});

t.test('what the API would refuse is found first, at its row', async (t) => {
  const bad = condition('tagEquals', 'no spaces', 'x');
  const compiled = compile(newGroup('and', [condition('tagHas', 'ok', ''), bad]));
  t.match(compiled, { problem: { key: 'segments.badKey' }, at: bad.id });
  t.match(compile(newGroup('and', [condition('language', '', 'ja_JP')])), { problem: { key: 'segments.badLanguage' } });
  t.match(compile(newGroup('and', [condition('subscribedWithin', '', '0')])), { problem: { key: 'segments.badDays' } });
  t.match(compile(newGroup('and', [condition('tagIn', 'k', ' , ')])), { problem: { key: 'segments.needValues' } });
  const empty = newGroup('or', []);
  t.match(compile(newGroup('and', [condition('tagHas', 'k', ''), empty])), {
    problem: { key: 'segments.emptyGroup' },
    at: empty.id,
  });
  const many = newGroup(
    'and',
    Array.from({ length: 3 }, () =>
      newGroup(
        'or',
        Array.from({ length: 20 }, (_, i) => condition('tagHas', `k${i}`, '')),
      ),
    ),
  );
  t.match(compile(many), { problem: { key: 'segments.tooManyLeaves' } }, '60 leaves');
  // nand → not(and(…)), then nor → not(or(…)), then negated rows: deeper than 5 levels.
  const deep = newGroup('nand', [
    condition('tagHas', 'a', ''),
    newGroup('nor', [
      condition('tagHas', 'b', ''),
      newGroup('nor', [condition('tagMissing', 'c', ''), condition('tagHas', 'd', '')]),
    ]),
  ]);
  t.match(compile(deep), { problem: { key: 'segments.tooDeep' } });
});

t.test('a saved expression opens in the builder and compiles back to itself', async (t) => {
  const saved: SegmentExpression[] = [
    { tag: 'plan', equals: 'pro' },
    { not: { tag: 'beta' } },
    { and: [{ tag: 'plan', in: ['pro', 'team'] }, { not: { or: [{ language: 'en' }, { timeZone: 'UTC' }] } }] },
    {
      or: [{ uid: ['u1', 'u2'] }, { not: { subscribedWithinDays: 7 } }, { not: { and: [{ tag: 'a' }, { tag: 'b' }] } }],
    },
  ];
  for (const expression of saved) t.same(expressionOf(treeOf(expression)), expression, summaryOf(expression));
  t.equal(
    summaryOf({ and: [{ tag: 'plan', equals: 'pro' }, { not: { or: [{ language: 'en' }, { tag: 'beta' }] } }] }),
    'plan = pro AND NOT (language en OR has beta)',
  );
  t.equal(depthOf({ and: [{ not: { or: [{ tag: 'a' }] } }] }), 3);
});
