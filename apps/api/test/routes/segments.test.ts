import type { ErrorCode } from '@webpush/errors';
import t from 'tap';
import { assertError, UUID } from '../assertions.js';
import { bearer, buildTestApp, fakeSubscription, ownerWithKey } from '../helper.js';

// Subscriber attributes, segments, translations and the app badge on the API side
// (docs/sending.md). Delivery is tested in apps/worker/test/delivery/segments.test.ts.
const ctx = await buildTestApp(t, { RATE_LIMIT_API_KEY_MAX: '100000', RATE_LIMIT_REGISTER_MAX: '1000' });
const { app } = ctx;
const sql = ctx.database.sql;

type Owner = Awaited<ReturnType<typeof ownerWithKey>>;
type Json = Record<string, unknown>;

const inject = (method: 'POST' | 'PATCH' | 'DELETE' | 'GET', url: string, token: string, payload?: unknown) =>
  app.inject({
    method,
    url: `/api/v1${url}`,
    headers: bearer(token),
    ...(payload === undefined ? {} : { payload: payload as Json }),
  });

async function subscribeAs(owner: Owner, fields: Json = {}) {
  const subscription = fakeSubscription();
  const response = await inject('POST', '/subscribe', owner.secret, { ...subscription, ...fields });
  if (response.statusCode !== 201) throw new Error(`subscribe: ${response.statusCode} ${response.body}`);
  return { ...subscription, id: (response.json() as { subscriber: { id: string } }).subscriber.id };
}

const attributesOf = async (id: string) =>
  (await sql`select language, time_zone from subscriptions where id = ${id}`)[0] as {
    language: string | null;
    time_zone: string | null;
  };

const owner = await ownerWithKey(app, 'notify');
const count = async (segment: unknown, who: Owner = owner) => {
  const response = await inject('POST', `/apps/${who.app.id}/segments/count`, who.user.token, { segment });
  t.equal(response.statusCode, 200, `count ${JSON.stringify(segment)}: ${response.body}`);
  return (response.json() as { count: number }).count;
};

t.test('language and timeZone: stored on subscribe, replaced when present, shown on subscribers', async (t) => {
  const tokyo = await subscribeAs(owner, { language: 'ja-JP', timeZone: 'Asia/Tokyo' });
  t.same(await attributesOf(tokyo.id), { language: 'ja-JP', time_zone: 'Asia/Tokyo' });
  const none = await subscribeAs(owner);
  t.same(await attributesOf(none.id), { language: null, time_zone: null });

  for (const [given, stored] of [
    ['UTC', 'UTC'],
    ['Etc/UTC', 'UTC'],
    ['America/New_York', 'America/New_York'],
    ['asia/tokyo', 'Asia/Tokyo'],
  ] as const) {
    const subscription = await subscribeAs(owner, { timeZone: given });
    t.equal((await attributesOf(subscription.id)).time_zone, stored, `${given} is stored as ${stored}`);
  }

  // A re-subscribe replaces what it gives and keeps the rest.
  const again = await inject('POST', '/subscribe', owner.secret, {
    endpoint: tokyo.endpoint,
    p256dh: tokyo.p256dh,
    auth: tokyo.auth,
    language: 'en',
  });
  t.equal(again.statusCode, 200);
  t.same(await attributesOf(tokyo.id), { language: 'en', time_zone: 'Asia/Tokyo' });

  const patched = await inject('PATCH', '/subscribe', owner.secret, {
    endpoint: tokyo.endpoint,
    timeZone: 'Europe/Berlin',
    language: null,
  });
  t.equal(patched.statusCode, 200, patched.body);
  t.same(await attributesOf(tokyo.id), { language: null, time_zone: 'Europe/Berlin' });

  const list = await inject('GET', `/apps/${owner.app.id}/subscribers?limit=100`, owner.user.token);
  const subscribers = (list.json() as { subscribers: { id: string; language: unknown; timeZone: unknown }[] })
    .subscribers;
  t.match(
    subscribers.find((s) => s.id === tokyo.id),
    { language: null, timeZone: 'Europe/Berlin' },
  );
  t.match(
    subscribers.find((s) => s.id === none.id),
    { language: null, timeZone: null },
  );
});

t.test('the subscribers list filters by language (as segments match it) and by time zone', async (t) => {
  const mine = await ownerWithKey(app, 'notify');
  const jaJP = await subscribeAs(mine, { language: 'ja-JP', timeZone: 'Asia/Tokyo' });
  const ja = await subscribeAs(mine, { language: 'JA', timeZone: 'UTC' });
  const javanese = await subscribeAs(mine, { language: 'jv', timeZone: 'Asia/Jakarta' });
  const unknown = await subscribeAs(mine);
  const ids = async (query: string) => {
    const response = await inject('GET', `/apps/${mine.app.id}/subscribers?${query}`, mine.user.token);
    t.equal(response.statusCode, 200, `${query}: ${response.body}`);
    return (response.json() as { subscribers: { id: string }[] }).subscribers.map((s) => s.id).sort();
  };
  t.same(await ids('language=ja'), [jaJP.id, ja.id].sort(), '`ja` is ja-JP and JA, not jv');
  t.same(await ids('language=ja-jp'), [jaJP.id]);
  t.same(await ids('language=j'), [], 'a prefix of a subtag is not a match');
  t.same(await ids('timeZone=Asia/Tokyo'), [jaJP.id]);
  t.same(await ids('timeZone=Etc/UTC'), [ja.id], 'the zone is compared as Intl names it');
  t.same(await ids('language=ja&timeZone=Asia/Jakarta'), [], 'both filters apply');
  t.same(await ids('limit=100'), [jaJP.id, ja.id, javanese.id, unknown.id].sort());
  // Paged with a filter, every match once.
  const first = await inject('GET', `/apps/${mine.app.id}/subscribers?language=ja&limit=1`, mine.user.token);
  const page = first.json() as { subscribers: { id: string }[]; nextCursor: string };
  const second = await inject(
    'GET',
    `/apps/${mine.app.id}/subscribers?language=ja&limit=1&cursor=${page.nextCursor}`,
    mine.user.token,
  );
  const rest = second.json() as { subscribers: { id: string }[]; nextCursor: string | null };
  t.same([...page.subscribers, ...rest.subscribers].map((s) => s.id).sort(), [jaJP.id, ja.id].sort());
  for (const query of ['language=ja_JP', 'language=', 'timeZone=Mars/Olympus_Mons', 'timeZone=%2B09:00']) {
    assertError(t, await inject('GET', `/apps/${mine.app.id}/subscribers?${query}`, mine.user.token), 'INVALID_INPUT');
  }
});

t.test('an unknown time zone or a malformed language is 400 INVALID_INPUT, and nothing is stored', async (t) => {
  for (const fields of [
    { timeZone: 'Mars/Olympus_Mons' },
    { timeZone: '+09:00' },
    { timeZone: '' },
    { timeZone: 9 },
    { language: 'ja_JP' },
    { language: 'x'.repeat(36) },
    { language: '' },
  ]) {
    const subscription = fakeSubscription();
    assertError(t, await inject('POST', '/subscribe', owner.secret, { ...subscription, ...fields }), 'INVALID_INPUT');
    const [row] = await sql`select 1 from subscriptions where endpoint = ${subscription.endpoint}`;
    t.notOk(row, `${JSON.stringify(fields)}: not stored`);
  }
  const stored = await subscribeAs(owner);
  assertError(
    t,
    await inject('PATCH', '/subscribe', owner.secret, { endpoint: stored.endpoint, timeZone: 'Nowhere/Land' }),
    'INVALID_INPUT',
  );
});

t.test('segments count what they match, as a send to them targets', async (t) => {
  const app2 = await ownerWithKey(app, 'notify');
  const made = async (fields: Json) => (await subscribeAs(app2, fields)).id;
  await made({ language: 'ja-JP', timeZone: 'Asia/Tokyo', tags: { plan: 'pro', country: 'JP' } });
  await made({ language: 'ja', tags: { plan: 'free', country: 'JP' } });
  await made({ language: 'JA-jp', tags: { plan: 'pro', country: 'US' }, uid: 'user-1' });
  await made({ language: 'jav', timeZone: 'Asia/Jakarta', tags: { beta: '' } });
  await made({ language: 'en-US', timeZone: 'America/New_York' });
  const expired = await made({ language: 'ja-JP', tags: { plan: 'pro' } });
  await sql`update subscriptions set status = 'expired' where id = ${expired}`;
  const old = await made({ language: 'de' });
  await sql`update subscriptions set created_at = now() - interval '10 days' where id = ${old}`;

  t.equal(await count({ tag: 'plan' }, app2), 3, 'has the tag');
  t.equal(await count({ tag: 'beta' }, app2), 1, 'has a tag with an empty value');
  t.equal(await count({ tag: 'plan', equals: 'pro' }, app2), 2);
  t.equal(await count({ tag: 'country', in: ['JP', 'DE'] }, app2), 2);
  t.equal(await count({ uid: ['user-1', 'user-9'] }, app2), 1);
  t.equal(await count({ language: 'ja' }, app2), 3, '"ja" matches ja, ja-JP and JA-jp, not jav');
  t.equal(await count({ language: 'JA-JP' }, app2), 2, 'case-insensitively');
  t.equal(await count({ timeZone: 'Asia/Tokyo' }, app2), 1);
  t.equal(await count({ timeZone: 'asia/tokyo' }, app2), 1, 'a zone is named as subscriptions store it');
  t.equal(await count({ subscribedWithinDays: 1 }, app2), 5);
  t.equal(await count({ subscribedWithinDays: 30 }, app2), 6);
  t.equal(await count({ not: { tag: 'plan' } }, app2), 3, 'not keeps the subscriptions without tags or language');
  t.equal(await count({ not: { language: 'ja' } }, app2), 3);
  t.equal(
    await count({ and: [{ tag: 'plan', equals: 'pro' }, { not: { tag: 'country', equals: 'US' } }] }, app2),
    1,
    'Pro users outside the US',
  );
  t.equal(await count({ or: [{ timeZone: 'Asia/Tokyo' }, { language: 'en' }, { uid: ['user-1'] }] }, app2), 3);

  const segment = {
    and: [
      { language: 'ja' },
      {
        or: [
          { tag: 'plan', equals: 'pro' },
          { tag: 'country', in: ['JP'] },
        ],
      },
    ],
  };
  const counted = await count(segment, app2);
  t.equal(counted, 3);
  const sent = await inject('POST', '/notify', app2.secret, { title: 'Hi', body: 'Segment', segment });
  t.equal(sent.statusCode, 202, sent.body);
  t.match(sent.json(), { notification: { id: UUID, status: 'queued', targets: counted } });
  const [stored] = await sql`select target_kind, target_segment from notifications
    where id = ${(sent.json() as { notification: { id: string } }).notification.id}`;
  t.same(stored, { target_kind: 'segment', target_segment: segment });

  const session = await inject('POST', `/apps/${app2.app.id}/notifications`, app2.user.token, {
    title: 'Hi',
    body: 'Session send',
    segment: { tag: 'plan' },
  });
  t.equal(session.statusCode, 202);
  t.equal((session.json() as { notification: { targets: number } }).notification.targets, 3);

  t.equal(await count({ tag: 'plan' }), 0, 'another app counts its own subscriptions only');
});

t.test('a bad segment is 400 INVALID_INPUT before any query: shape, depth, leaves', async (t) => {
  let deep: Json = { tag: 'a' };
  for (let i = 0; i < 5; i++) deep = { not: deep };
  t.equal(await count(deep), await count({ not: { tag: 'a' } }), 'five levels of and/or/not are allowed');
  const tooDeep = { and: [deep] };
  const leaves = (n: number) => ({ or: Array.from({ length: n }, (_, i) => ({ tag: `t${i % 20}` })) });
  const wide = { and: [leaves(20), leaves(20), leaves(11)] };
  t.equal(await count({ and: [leaves(20), leaves(20), leaves(10)] }), 0, '50 leaves are allowed');
  for (const segment of [
    tooDeep,
    wide,
    {},
    [],
    'tag',
    { tag: 'a', equals: 1 },
    { tag: 'a', in: [] },
    { tag: 'a', in: Array.from({ length: 101 }, (_, i) => `${i}`) },
    { tag: 'a', equals: 'x', in: ['x'] },
    { tag: 'bad key' },
    { uid: [] },
    { language: 'ja_JP' },
    { timeZone: 'Mars/Base' },
    { subscribedWithinDays: 0 },
    { subscribedWithinDays: 3651 },
    { subscribedWithinDays: 1.5 },
    { and: [] },
    { or: Array.from({ length: 21 }, () => ({ tag: 'a' })) },
    { not: [{ tag: 'a' }] },
    { and: [{ tag: 'a' }], or: [{ tag: 'b' }] },
    { and: [{ tag: 'a' }, { nope: true }] },
    { not: { not: { language: 5 } } },
    { extra: 1, tag: 'a' },
  ]) {
    t.comment(JSON.stringify(segment).slice(0, 80));
    const counted = await inject('POST', `/apps/${owner.app.id}/segments/count`, owner.user.token, { segment });
    assertError(t, counted, 'INVALID_INPUT');
    const sent = await inject('POST', '/notify', owner.secret, { title: 'x', body: 'y', segment });
    assertError(t, sent, 'INVALID_INPUT');
    const saved = await inject('POST', `/apps/${owner.app.id}/segments`, owner.user.token, { name: 'n', segment });
    assertError(t, saved, 'INVALID_INPUT');
  }
  const [row] = await sql`select count(*)::int as n from notifications where app_id = ${owner.app.id}`;
  t.equal(row?.n, 0, 'nothing was accepted');
  // Deep enough to trouble a recursive validator (or JSON.stringify): refused at the sixth level.
  const levels = 3_000;
  const huge = `{"segment":${'{"not":'.repeat(levels)}{"tag":"a"}${'}'.repeat(levels)}}`;
  const deepResponse = await app.inject({
    method: 'POST',
    url: `/api/v1/apps/${owner.app.id}/segments/count`,
    headers: { ...bearer(owner.user.token), 'content-type': 'application/json' },
    payload: huge,
  });
  assertError(t, deepResponse, 'INVALID_INPUT');
});

t.test('at most one of endpoint, uids, tags, segment, segmentId', async (t) => {
  const subscription = await subscribeAs(owner);
  const pairs: Json[] = [
    { segment: { tag: 'a' }, tags: { a: 'b' } },
    { segment: { tag: 'a' }, uids: ['u'] },
    { segment: { tag: 'a' }, endpoint: subscription.endpoint },
    { segmentId: '00000000-0000-0000-0000-000000000000', segment: { tag: 'a' } },
    { segmentId: '00000000-0000-0000-0000-000000000000', tags: { a: 'b' } },
  ];
  for (const fields of pairs) {
    assertError(
      t,
      await inject('POST', '/notify', owner.secret, { title: 'x', body: 'y', ...fields }),
      'INVALID_INPUT',
    );
  }
});

t.test('saved segments: create, list with live count, send by segmentId, delete; other apps 404', async (t) => {
  const mine = await ownerWithKey(app, 'notify');
  const other = await ownerWithKey(app, 'notify');
  await subscribeAs(mine, { language: 'ja-JP' });
  await subscribeAs(mine, { language: 'en' });

  const created = await inject('POST', `/apps/${mine.app.id}/segments`, mine.user.token, {
    name: 'Japanese speakers',
    segment: { language: 'ja' },
  });
  t.equal(created.statusCode, 201, created.body);
  const { segment } = created.json() as { segment: { id: string; name: string; segment: unknown; createdAt: string } };
  t.match(segment, { id: UUID, name: 'Japanese speakers', segment: { language: 'ja' }, createdAt: String });

  const listed = await inject('GET', `/apps/${mine.app.id}/segments`, mine.user.token);
  t.equal(listed.statusCode, 200);
  t.same((listed.json() as { segments: unknown[] }).segments, [{ ...segment, count: 1 }]);
  await subscribeAs(mine, { language: 'ja' });
  const recount = await inject('GET', `/apps/${mine.app.id}/segments`, mine.user.token);
  t.equal((recount.json() as { segments: { count: number }[] }).segments[0]?.count, 2, 'the count is live');

  const sent = await inject('POST', '/notify', mine.secret, {
    title: 'こんにちは',
    body: '本文',
    segmentId: segment.id,
  });
  t.equal(sent.statusCode, 202, sent.body);
  t.equal((sent.json() as { notification: { targets: number } }).notification.targets, 2);
  const scheduled = await inject('POST', '/notify', mine.secret, {
    title: 'Later',
    body: 'Scheduled',
    segmentId: segment.id,
    sendAt: new Date(Date.now() + 3_600_000).toISOString(),
  });
  t.match(scheduled.json(), { notification: { status: 'scheduled', targets: 0 } });

  assertError(
    t,
    await inject('POST', '/notify', other.secret, { title: 'x', body: 'y', segmentId: segment.id }),
    'NOT_FOUND',
  );
  assertError(
    t,
    await inject('POST', '/notify', other.secret, { title: 'x', body: 'y', segmentId: 'nope' }),
    'NOT_FOUND',
  );
  assertError(t, await inject('GET', `/apps/${mine.app.id}/segments`, other.user.token), 'NOT_FOUND');
  assertError(t, await inject('DELETE', `/apps/${other.app.id}/segments/${segment.id}`, other.user.token), 'NOT_FOUND');
  assertError(
    t,
    await inject('POST', `/apps/${mine.app.id}/segments`, mine.user.token, { segment: { tag: 'a' } }),
    'MISSING_FIELDS',
  );
  assertError(
    t,
    await inject('POST', `/apps/${mine.app.id}/segments`, mine.user.token, {
      name: 'x'.repeat(101),
      segment: { tag: 'a' },
    }),
    'INVALID_INPUT',
  );

  const deleted = await inject('DELETE', `/apps/${mine.app.id}/segments/${segment.id}`, mine.user.token);
  t.equal(deleted.statusCode, 204);
  assertError(t, await inject('DELETE', `/apps/${mine.app.id}/segments/${segment.id}`, mine.user.token), 'NOT_FOUND');
  assertError(
    t,
    await inject('POST', '/notify', mine.secret, { title: 'x', body: 'y', segmentId: segment.id }),
    'NOT_FOUND',
  );
});

t.test('a saved segment is renamed or re-conditioned in place; each change joins the app’s audit log', async (t) => {
  const mine = await ownerWithKey(app, 'notify');
  const other = await ownerWithKey(app, 'notify');
  await subscribeAs(mine, { language: 'ja-JP', tags: { plan: 'pro' } });
  await subscribeAs(mine, { language: 'en', tags: { plan: 'pro' } });
  const created = await inject('POST', `/apps/${mine.app.id}/segments`, mine.user.token, {
    name: 'Japanese',
    segment: { language: 'ja' },
  });
  const { segment } = created.json() as { segment: { id: string; createdAt: string } };
  const url = `/apps/${mine.app.id}/segments/${segment.id}`;

  const renamed = await inject('PATCH', url, mine.user.token, { name: 'Speakers of Japanese' });
  t.equal(renamed.statusCode, 200, renamed.body);
  t.same((renamed.json() as Json).segment, {
    id: segment.id,
    name: 'Speakers of Japanese',
    segment: { language: 'ja' },
    createdAt: segment.createdAt,
  });
  const widened = await inject('PATCH', url, mine.user.token, { segment: { tag: 'plan', equals: 'pro' } });
  t.equal(widened.statusCode, 200, widened.body);
  t.match((widened.json() as Json).segment, { name: 'Speakers of Japanese', segment: { tag: 'plan', equals: 'pro' } });
  const listed = (await inject('GET', `/apps/${mine.app.id}/segments`, mine.user.token)).json() as {
    segments: { id: string; count: number }[];
  };
  t.same(
    listed.segments.map((s) => [s.id, s.count]),
    [[segment.id, 2]],
    'the list counts the new conditions',
  );

  assertError(t, await inject('PATCH', url, mine.user.token, {}), 'MISSING_FIELDS');
  // An empty name is a missing one, as everywhere in the API.
  assertError(t, await inject('PATCH', url, mine.user.token, { name: '' }), 'MISSING_FIELDS');
  assertError(t, await inject('PATCH', url, mine.user.token, { name: 'x'.repeat(101) }), 'INVALID_INPUT');
  assertError(t, await inject('PATCH', url, mine.user.token, { segment: { tag: 'a', nope: 1 } }), 'INVALID_INPUT');
  assertError(
    t,
    await inject('PATCH', `/apps/${other.app.id}/segments/${segment.id}`, other.user.token, { name: 'Mine now' }),
    'NOT_FOUND',
  );
  assertError(
    t,
    await inject('PATCH', `/apps/${mine.app.id}/segments/nope`, mine.user.token, { name: 'x' }),
    'NOT_FOUND',
  );
  const [kept] = await sql`select name from segments where id = ${segment.id}`;
  t.equal(kept?.name, 'Speakers of Japanese', 'a refused change changes nothing');

  t.equal((await inject('DELETE', url, mine.user.token)).statusCode, 204);
  assertError(t, await inject('PATCH', url, mine.user.token, { name: 'x' }), 'NOT_FOUND');

  const log = await inject('GET', `/apps/${mine.app.id}/audit-log`, mine.user.token);
  t.equal(log.statusCode, 200, log.body);
  const entries = (log.json() as { entries: { action: string; target: unknown; actor: { type: string } }[] }).entries;
  t.same(
    entries.filter((e) => e.action.startsWith('segment.')).map((e) => [e.action, e.target, e.actor.type]),
    [
      ['segment.deleted', { type: 'segment', id: segment.id }, 'user'],
      ['segment.updated', { type: 'segment', id: segment.id }, 'user'],
      ['segment.updated', { type: 'segment', id: segment.id }, 'user'],
      ['segment.created', { type: 'segment', id: segment.id }, 'user'],
    ],
    'created, updated twice, deleted: newest first',
  );
  const otherLog = (await inject('GET', `/apps/${other.app.id}/audit-log`, other.user.token)).json() as {
    entries: { action: string }[];
  };
  t.notOk(
    otherLog.entries.some((e) => e.action.startsWith('segment.')),
    'the refused change left nothing in the other app’s log',
  );
});

t.test('translations and appBadge: stored, shown, and held to the byte rules', async (t) => {
  const sender = await ownerWithKey(app, 'notify');
  const accepted = await inject('POST', '/notify', sender.secret, {
    title: 'Sale',
    body: 'Today only',
    url: 'https://example.com/sale',
    appBadge: 3,
    translations: {
      ja: { title: 'セール', body: '本日限定' },
      'pt-BR': { title: 'Promoção', url: 'https://example.com/pt' },
    },
  });
  t.equal(accepted.statusCode, 202, accepted.body);
  const { id } = (accepted.json() as { notification: { id: string } }).notification;
  const shown = await inject('GET', `/notifications/${id}`, sender.secret);
  t.match(shown.json(), {
    notification: { appBadge: 3, translations: { ja: { title: 'セール', body: '本日限定' } } },
  });

  const badBodies: [Json, ErrorCode][] = [
    [{ appBadge: -1 }, 'INVALID_INPUT'],
    [{ appBadge: 1000 }, 'INVALID_INPUT'],
    [{ appBadge: 1.5 }, 'INVALID_INPUT'],
    [{ appBadge: '3' }, 'INVALID_INPUT'],
    [{ translations: { ja: { body: 'no title' } } }, 'INVALID_INPUT'],
    [{ translations: { ja_JP: { title: 'x' } } }, 'INVALID_INPUT'],
    [{ translations: { ja: { title: 'x', url: 'http://example.com' } } }, 'INVALID_URL'],
    [{ translations: { ja: { title: 'x', extra: 1 } } }, 'INVALID_INPUT'],
    [{ translations: { ja: { title: 'x' }, JA: { title: 'y' } } }, 'INVALID_INPUT'],
    [
      { translations: Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`l${i}`, { title: 'x' }])) },
      'INVALID_INPUT',
    ],
    [{ translations: { ja: { title: 'あ'.repeat(1100) } } }, 'PAYLOAD_TOO_LARGE'],
    [
      { translations: { ja: { title: 'x', body: 'b'.repeat(3900) } }, image: 'https://example.com/i.png' },
      'PAYLOAD_TOO_LARGE',
    ],
  ];
  for (const [fields, code] of badBodies) {
    assertError(t, await inject('POST', '/notify', sender.secret, { title: 'x', body: 'y', ...fields }), code);
  }
  const [row] = await sql`select count(*)::int as n from notifications where app_id = ${sender.app.id}`;
  t.equal(row?.n, 1, 'only the good send was stored');
});
