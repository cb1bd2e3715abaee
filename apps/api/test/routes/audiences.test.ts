import { createHmac } from 'node:crypto';
import { fanOutJobId } from '@webpush/queue';
import t from 'tap';
import { assertError, UUID } from '../assertions.js';
import { bearer, buildTestApp, createKey, fakeSubscription, ownerWithKey } from '../helper.js';

// Audiences and scheduled sends on the API side (docs/sending.md):
// uid/tags on subscriptions, signed uids, targeting, sendAt and cancel. No worker runs here;
// delivery and the scheduler's start are tested in apps/worker/test/audiences.test.ts.
const ctx = await buildTestApp(t, { RATE_LIMIT_API_KEY_MAX: '100000', RATE_LIMIT_REGISTER_MAX: '1000' });
const { app } = ctx;
const sql = ctx.database.sql;

type Owner = Awaited<ReturnType<typeof ownerWithKey>>;
type Json = Record<string, unknown>;

const inject = (method: 'POST' | 'PATCH' | 'DELETE' | 'GET', url: string, token: string, payload?: Json) =>
  app.inject({ method, url: `/api/v1${url}`, headers: bearer(token), ...(payload ? { payload } : {}) });

const sign = (secret: string, uid: string) => createHmac('sha256', secret).update(uid).digest('hex');

async function identitySecret(owner: Owner): Promise<string> {
  const response = await inject('POST', `/apps/${owner.app.id}/identity-secret`, owner.user.token);
  if (response.statusCode !== 201) throw new Error(`identity secret: ${response.statusCode} ${response.body}`);
  return (response.json() as { secret: string }).secret;
}

const subscriptionRow = async (endpoint: string) =>
  (await sql`select id, uid, tags from subscriptions where endpoint = ${endpoint}`)[0] as
    | { id: string; uid: string | null; tags: Record<string, string> }
    | undefined;

/** Subscribes a fresh browser with a notify key (no signature needed) and the given uid/tags. */
async function subscribeAs(owner: Owner, audience: Json = {}) {
  const subscription = fakeSubscription();
  const response = await inject('POST', '/subscribe', owner.secret, { ...subscription, ...audience });
  if (response.statusCode !== 201) throw new Error(`subscribe: ${response.statusCode} ${response.body}`);
  return { ...subscription, id: (response.json() as { subscriber: { id: string } }).subscriber.id };
}

const owner = await ownerWithKey(app, 'notify');
const pageKey = (await createKey(app, owner.user.token, owner.app.id, 'subscribe_only')).secret;
const fullKey = (await createKey(app, owner.user.token, owner.app.id, 'full')).secret;

t.test('POST /apps/:appId/identity-secret creates and replaces the secret, stored sealed', async (t) => {
  const response = await inject('POST', `/apps/${owner.app.id}/identity-secret`, owner.user.token);
  t.equal(response.statusCode, 201);
  const { secret } = response.json() as { secret: string };
  t.match(secret, /^wis_[A-Za-z0-9_-]{43}$/);
  const [row] = await sql`select identity_secret_sealed from apps where id = ${owner.app.id}`;
  t.match(row?.identity_secret_sealed, /^v2\./, 'sealed like the VAPID key, bound to its app');
  t.notOk(String(row?.identity_secret_sealed).includes(secret.slice(4)), 'not stored in the clear');
  const again = await identitySecret(owner);
  t.not(again, secret, 'a second call replaces it');

  const other = await ownerWithKey(app, 'notify');
  assertError(t, await inject('POST', `/apps/${owner.app.id}/identity-secret`, other.user.token), 'NOT_FOUND');
  assertError(t, await inject('POST', '/apps/not-a-uuid/identity-secret', owner.user.token), 'NOT_FOUND');
  assertError(t, await inject('POST', `/apps/${owner.app.id}/identity-secret`, owner.secret), 'INVALID_SESSION');
});

t.test('a subscribe_only key sets a uid only with the right signature; 403 stores nothing', async (t) => {
  const secret = await identitySecret(owner);
  const missing = fakeSubscription();
  assertError(t, await inject('POST', '/subscribe', pageKey, { ...missing, uid: 'user-1' }), 'INVALID_UID_SIGNATURE');
  const forged = fakeSubscription();
  const wrong = sign('not-the-secret', 'user-1');
  assertError(
    t,
    await inject('POST', '/subscribe', pageKey, { ...forged, uid: 'user-1', uidSignature: wrong }),
    'INVALID_UID_SIGNATURE',
  );
  const otherUid = fakeSubscription();
  assertError(
    t,
    await inject('POST', '/subscribe', pageKey, { ...otherUid, uid: 'user-2', uidSignature: sign(secret, 'user-1') }),
    'INVALID_UID_SIGNATURE',
    // a valid signature of another uid does not transfer
  );
  const upper = fakeSubscription();
  assertError(
    t,
    await inject('POST', '/subscribe', pageKey, {
      ...upper,
      uid: 'user-1',
      uidSignature: sign(secret, 'user-1').toUpperCase(),
    }),
    'INVALID_UID_SIGNATURE',
  );
  for (const subscription of [missing, forged, otherUid, upper]) {
    t.equal(await subscriptionRow(subscription.endpoint), undefined, 'nothing stored');
  }

  const signed = fakeSubscription();
  const ok = await inject('POST', '/subscribe', pageKey, {
    ...signed,
    uid: 'user-1',
    uidSignature: sign(secret, 'user-1'),
    tags: { lang: 'ja' },
  });
  t.equal(ok.statusCode, 201);
  t.match(await subscriptionRow(signed.endpoint), { uid: 'user-1', tags: { lang: 'ja' } });

  const tagsOnly = fakeSubscription();
  t.equal((await inject('POST', '/subscribe', pageKey, { ...tagsOnly, tags: { a: 'b' } })).statusCode, 201);
  t.match(await subscriptionRow(tagsOnly.endpoint), { uid: null, tags: { a: 'b' } }, 'tags need no signature');

  const serverSide = fakeSubscription();
  t.equal((await inject('POST', '/subscribe', fullKey, { ...serverSide, uid: 'user-9' })).statusCode, 201);
  t.match(await subscriptionRow(serverSide.endpoint), { uid: 'user-9' }, 'a full key needs no signature');
});

t.test('an app without an identity secret refuses every signed uid from a subscribe_only key', async (t) => {
  const fresh = await ownerWithKey(app, 'subscribe_only');
  const subscription = fakeSubscription();
  assertError(
    t,
    await inject('POST', '/subscribe', fresh.secret, { ...subscription, uid: 'u', uidSignature: sign('', 'u') }),
    'INVALID_UID_SIGNATURE',
  );
  t.equal(await subscriptionRow(subscription.endpoint), undefined);
});

t.test('a re-subscribe replaces uid and tags when present and keeps them when absent', async (t) => {
  const subscription = await subscribeAs(owner, { uid: 'first', tags: { lang: 'en', plan: 'free' } });
  const again = await inject('POST', '/subscribe', owner.secret, { ...subscription, tags: { lang: 'ja' } });
  t.equal(again.statusCode, 200);
  t.strictSame(again.json(), { subscriber: { id: subscription.id } });
  t.match(await subscriptionRow(subscription.endpoint), { uid: 'first', tags: { lang: 'ja' } }, 'tags replaced whole');
  await inject('POST', '/subscribe', owner.secret, { ...subscription, uid: 'second' });
  const row = await subscriptionRow(subscription.endpoint);
  t.strictSame([row?.uid, row?.tags], ['second', { lang: 'ja' }]);
});

t.test('PATCH /subscribe sets, replaces and removes (uid: null); 404 for an unknown endpoint', async (t) => {
  const subscription = await subscribeAs(owner, { uid: 'patch-me', tags: { x: '1' } });
  const patch = (token: string, body: Json) => inject('PATCH', '/subscribe', token, body);

  const tagsOnly = await patch(owner.secret, { endpoint: subscription.endpoint, tags: { y: '2' } });
  t.equal(tagsOnly.statusCode, 200);
  t.strictSame(tagsOnly.json(), { subscriber: { id: subscription.id } });
  t.match(await subscriptionRow(subscription.endpoint), { uid: 'patch-me', tags: { y: '2' } });

  t.equal((await patch(fullKey, { endpoint: subscription.endpoint, uid: 'renamed' })).statusCode, 200);
  t.match(await subscriptionRow(subscription.endpoint), { uid: 'renamed', tags: { y: '2' } });

  t.equal((await patch(owner.secret, { endpoint: subscription.endpoint, uid: null, tags: {} })).statusCode, 200);
  const cleared = await subscriptionRow(subscription.endpoint);
  t.strictSame([cleared?.uid, cleared?.tags], [null, {}], 'uid removed, tags emptied');

  assertError(t, await patch(owner.secret, { ...fakeSubscription(), uid: 'x' }), 'NOT_FOUND');
  const other = await ownerWithKey(app, 'notify');
  assertError(t, await patch(other.secret, { endpoint: subscription.endpoint, uid: 'x' }), 'NOT_FOUND');
  assertError(t, await patch(pageKey, { endpoint: subscription.endpoint, uid: 'x' }), 'INSUFFICIENT_SCOPE');
  assertError(t, await patch(owner.secret, { uid: 'x' }), 'MISSING_FIELDS');
  assertError(t, await patch(owner.secret, { endpoint: subscription.endpoint, uid: '' }), 'INVALID_INPUT');
  t.match(await subscriptionRow(subscription.endpoint), { uid: null }, 'refused changes change nothing');
});

t.test('uid and tags are validated with exact bodies on subscribe', async (t) => {
  const bad: [string, Json][] = [
    ['empty uid', { uid: '' }],
    ['uid of 129 characters', { uid: 'u'.repeat(129) }],
    ['numeric uid', { uid: 42 }],
    ['21 tags', { tags: Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`k${i}`, 'v'])) }],
    ['a key with a space', { tags: { 'bad key': 'v' } }],
    ['a key of 65 characters', { tags: { ['k'.repeat(65)]: 'v' } }],
    ['a value of 129 characters', { tags: { k: 'v'.repeat(129) } }],
    ['a number value', { tags: { k: 1 } }],
    ['tags as a list', { tags: ['a'] }],
  ];
  for (const [label, fields] of bad) {
    const subscription = fakeSubscription();
    const response = await inject('POST', '/subscribe', owner.secret, { ...subscription, ...fields });
    t.test(label, async (t) => {
      assertError(t, response, 'INVALID_INPUT');
      t.equal(await subscriptionRow(subscription.endpoint), undefined);
    });
  }
  const edge = fakeSubscription();
  const twenty = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`k.${i}_-`, 'v'.repeat(128)]));
  const ok = await inject('POST', '/subscribe', owner.secret, { ...edge, uid: 'ü'.repeat(128), tags: twenty });
  t.equal(ok.statusCode, 201, '128-character uid, 20 tags with 128-character values');
});

t.test('the subscriber list shows uid and tags and filters by them', async (t) => {
  const lister = await ownerWithKey(app, 'notify');
  const a = await subscribeAs(lister, { uid: 'alice', tags: { lang: 'ja', plan: 'pro' } });
  const b = await subscribeAs(lister, { uid: 'alice', tags: { lang: 'en' } });
  const c = await subscribeAs(lister, { tags: { lang: 'ja' } });
  const list = async (query: string) => {
    const response = await inject('GET', `/apps/${lister.app.id}/subscribers${query}`, lister.user.token);
    t.equal(response.statusCode, 200, query);
    return (response.json() as { subscribers: { id: string; uid: string | null; tags: Json }[] }).subscribers;
  };
  const all = await list('');
  t.match(
    all.map((s) => [s.id, s.uid, s.tags]),
    [
      [c.id, null, { lang: 'ja' }],
      [b.id, 'alice', { lang: 'en' }],
      [a.id, 'alice', { lang: 'ja', plan: 'pro' }],
    ],
  );
  t.strictSame(
    (await list('?uid=alice')).map((s) => s.id),
    [b.id, a.id],
  );
  t.strictSame(
    (await list('?tag=lang:ja')).map((s) => s.id),
    [c.id, a.id],
  );
  t.strictSame(
    (await list('?uid=alice&tag=plan:pro')).map((s) => s.id),
    [a.id],
  );
  t.strictSame(await list('?tag=lang:fr'), []);
  assertError(
    t,
    await inject('GET', `/apps/${lister.app.id}/subscribers?tag=nocolon`, lister.user.token),
    'INVALID_INPUT',
  );
});

const notify = (token: string, body: Json) => inject('POST', '/notify', token, { title: 'T', body: 'B', ...body });
const notificationRow = async (id: string) =>
  (
    await sql`select status, targets, target_kind, target_uids, target_tags, send_at, completed_at
      from notifications where id = ${id}`
  )[0];
const monthlyUsage = async (userId: string) =>
  ((
    await sql`select sends::int as sends from monthly_usage
      where user_id = ${userId} and month = date_trunc('month', now() at time zone 'UTC')::date`
  )[0]?.sends as number | undefined) ?? 0;

t.test('uids and tags count exactly the matching active subscriptions, reserved at acceptance', async (t) => {
  const sender = await ownerWithKey(app, 'notify');
  await subscribeAs(sender, { uid: 'u1', tags: { lang: 'ja', plan: 'pro' } });
  await subscribeAs(sender, { uid: 'u1', tags: { lang: 'ja' } });
  await subscribeAs(sender, { uid: 'u2', tags: { lang: 'en', plan: 'pro' } });
  const expired = await subscribeAs(sender, { uid: 'u2', tags: { lang: 'ja', plan: 'pro' } });
  await sql`update subscriptions set status = 'expired' where id = ${expired.id}`;
  // Another app's subscription with the same uid and tags is never a target.
  await subscribeAs(await ownerWithKey(app, 'notify'), { uid: 'u1', tags: { lang: 'ja' } });

  const cases: [Json, number][] = [
    [{ uids: ['u1'] }, 2],
    [{ uids: ['u1', 'u2', 'u1', 'nobody'] }, 3],
    [{ tags: { lang: 'ja' } }, 2],
    [{ tags: { lang: 'ja', plan: 'pro' } }, 1],
    [{ tags: { plan: 'pro' } }, 2],
    [{ tags: {} }, 3],
  ];
  let reserved = 0;
  for (const [targeting, expected] of cases) {
    const response = await notify(sender.secret, targeting);
    t.equal(response.statusCode, 202, JSON.stringify(targeting));
    const { notification } = response.json() as { notification: { id: string; status: string; targets: number } };
    t.strictSame({ ...notification, id: 'x' }, { id: 'x', status: 'queued', targets: expected });
    reserved += expected;
    const row = await notificationRow(notification.id);
    t.equal(row?.target_kind, 'uids' in targeting ? 'uids' : 'tags');
  }
  t.equal(await monthlyUsage(sender.user.user.id), reserved, 'the targets are reserved in the month');
  const row = await notificationRow(
    (
      (await notify(sender.secret, { uids: ['u1', 'u1'] })).json() as Json & {
        notification: { id: string };
      }
    ).notification.id,
  );
  t.strictSame(row?.target_uids, ['u1'], 'uids stored once each');
});

t.test('zero targets is 202 and completes at once', async (t) => {
  const sender = await ownerWithKey(app, 'notify');
  for (const targeting of [{ uids: ['nobody'] }, { tags: { lang: 'xx' } }]) {
    const response = await notify(sender.secret, targeting);
    t.equal(response.statusCode, 202);
    const { notification } = response.json() as { notification: { id: string; targets: number } };
    t.equal(notification.targets, 0);
    const get = await inject('GET', `/notifications/${notification.id}`, sender.secret);
    t.match(get.json(), { notification: { status: 'completed', targets: 0, sent: 0, completedAt: String } });
  }
});

t.test('targeting and sendAt are validated with exact bodies; nothing is stored', async (t) => {
  const sender = await ownerWithKey(app, 'notify');
  const endpoint = (await subscribeAs(sender)).endpoint;
  const soon = new Date(Date.now() + 60_000).toISOString();
  const bad: [string, Json][] = [
    ['endpoint and uids', { endpoint, uids: ['a'] }],
    ['endpoint and tags', { endpoint, tags: { a: 'b' } }],
    ['uids and tags', { uids: ['a'], tags: { a: 'b' } }],
    ['all three', { endpoint, uids: ['a'], tags: { a: 'b' } }],
    ['empty uids', { uids: [] }],
    ['1,001 uids', { uids: Array.from({ length: 1_001 }, (_, i) => `u${i}`) }],
    ['an empty uid', { uids: [''] }],
    ['a uid of 129 characters', { uids: ['u'.repeat(129)] }],
    ['a non-string uid', { uids: [1] }],
    ['a bad tag key', { tags: { 'a b': 'c' } }],
    ['a non-string tag value', { tags: { a: true } }],
    ['sendAt in the past', { sendAt: new Date(Date.now() - 1_000).toISOString() }],
    ['sendAt more than 30 days ahead', { sendAt: new Date(Date.now() + 30 * 86_400_000 + 60_000).toISOString() }],
    ['sendAt without a time zone', { sendAt: '2030-01-01T09:00:00' }],
    ['sendAt as a date only', { sendAt: '2030-01-01' }],
    ['sendAt that is not a time', { sendAt: 'tomorrow' }],
    ['sendAt as a number', { sendAt: Date.now() + 60_000 }],
    ['sendAt with uids and tags', { sendAt: soon, uids: ['a'], tags: { a: 'b' } }],
  ];
  for (const [label, fields] of bad) {
    const response = await notify(sender.secret, fields);
    t.test(label, async (t) => assertError(t, response, 'INVALID_INPUT'));
  }
  const session = await inject('POST', `/apps/${sender.app.id}/notifications`, sender.user.token, {
    title: 'T',
    body: 'B',
    endpoint,
    uids: ['a'],
  });
  assertError(t, session, 'INVALID_INPUT');
  t.equal((await sql`select count(*)::int as n from notifications where app_id = ${sender.app.id}`)[0]?.n, 0);
  t.equal(await monthlyUsage(sender.user.user.id), 0);
});

t.test('sendAt answers scheduled, reserves nothing yet, and DELETE cancels it (then 409)', async (t) => {
  const sender = await ownerWithKey(app, 'notify');
  await subscribeAs(sender, { uid: 'later' });
  const sendAt = new Date(Date.now() + 3_600_000);
  const response = await notify(sender.secret, { uids: ['later'], sendAt: sendAt.toISOString() });
  t.equal(response.statusCode, 202);
  const { notification } = response.json() as { notification: { id: string; status: string; targets: number } };
  t.match(notification, { id: UUID, status: 'scheduled', targets: 0 });
  t.equal(await monthlyUsage(sender.user.user.id), 0, 'usage is reserved when it starts');
  const row = await notificationRow(notification.id);
  t.equal(row?.status, 'scheduled');
  t.equal(new Date(String(row?.send_at)).getTime(), sendAt.getTime());
  t.equal(await app.queues.fanOut.getJob(fanOutJobId(notification.id)), undefined, 'nothing queued for it');

  const get = await inject('GET', `/notifications/${notification.id}`, sender.secret);
  t.match(get.json(), { notification: { status: 'scheduled', sendAt: sendAt.toISOString(), completedAt: null } });

  const other = await ownerWithKey(app, 'full');
  assertError(t, await inject('DELETE', `/notifications/${notification.id}`, other.secret), 'NOT_FOUND');
  const subscribeOnly = (await createKey(app, sender.user.token, sender.app.id, 'subscribe_only')).secret;
  assertError(t, await inject('DELETE', `/notifications/${notification.id}`, subscribeOnly), 'INSUFFICIENT_SCOPE');
  assertError(t, await inject('DELETE', '/notifications/not-a-uuid', sender.secret), 'NOT_FOUND');

  const canceled = await inject('DELETE', `/notifications/${notification.id}`, sender.secret);
  t.equal(canceled.statusCode, 200);
  t.match(canceled.json(), {
    notification: { id: notification.id, status: 'canceled', targets: 0, sent: 0, sendAt: sendAt.toISOString() },
  });
  t.equal((await notificationRow(notification.id))?.status, 'canceled');
  assertError(t, await inject('DELETE', `/notifications/${notification.id}`, sender.secret), 'NOT_CANCELABLE');

  const immediate = await notify(sender.secret, { uids: ['later'] });
  const { id } = (immediate.json() as { notification: { id: string } }).notification;
  assertError(t, await inject('DELETE', `/notifications/${id}`, sender.secret), 'NOT_CANCELABLE');
  t.equal((await notificationRow(id))?.status, 'queued', 'a started send is left alone');
});

t.test('the session sends with targeting and sendAt and cancels from the dashboard', async (t) => {
  const sender = await ownerWithKey(app, 'notify');
  await subscribeAs(sender, { tags: { team: 'a' } });
  await subscribeAs(sender, { tags: { team: 'b' } });
  const base = `/apps/${sender.app.id}/notifications`;
  const now = await inject('POST', base, sender.user.token, { title: 'T', body: 'B', tags: { team: 'a' } });
  t.equal(now.statusCode, 202);
  t.match(now.json(), { notification: { status: 'queued', targets: 1 } });

  const sendAt = new Date(Date.now() + 600_000).toISOString();
  const later = await inject('POST', base, sender.user.token, { title: 'T', body: 'B', sendAt });
  t.match(later.json(), { notification: { status: 'scheduled', targets: 0 } });
  const { id } = (later.json() as { notification: { id: string } }).notification;

  const list = await inject('GET', base, sender.user.token);
  t.match(list.json(), {
    notifications: [
      { id, status: 'scheduled', sendAt },
      { status: 'queued', sendAt: undefined },
    ],
  });

  const stranger = await ownerWithKey(app, 'notify');
  assertError(t, await inject('DELETE', `${base}/${id}`, stranger.user.token), 'NOT_FOUND');
  const canceled = await inject('DELETE', `${base}/${id}`, sender.user.token);
  t.equal(canceled.statusCode, 200);
  t.match(canceled.json(), { notification: { id, status: 'canceled' } });
  assertError(t, await inject('DELETE', `${base}/${id}`, sender.user.token), 'NOT_CANCELABLE');
});
