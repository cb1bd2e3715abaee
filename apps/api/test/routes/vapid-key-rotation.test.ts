import { createECDH } from 'node:crypto';
import t from 'tap';
import { assertError } from '../assertions.js';
import { bearer, buildTestApp, fakeSubscription, ownerWithKey } from '../helper.js';

// POST /apps/:appId/vapid-key/rotate, POST /subscribe's applicationServerKey and the subscribers'
// vapidPublicKey (docs/sending.md, "Rotating the VAPID key"). Delivery with each key: apps/worker/test/vapid-rotation.test.ts.
const ctx = await buildTestApp(t, { RATE_LIMIT_API_KEY_MAX: '100000', RATE_LIMIT_REGISTER_MAX: '1000' });
const { app } = ctx;

type Owner = Awaited<ReturnType<typeof ownerWithKey>>;
interface PublicApp {
  id: string;
  vapidPublicKey: string;
}

const rotate = (token: string, appId: string) =>
  app.inject({ method: 'POST', url: `/api/v1/apps/${appId}/vapid-key/rotate`, headers: bearer(token) });

const subscribe = (owner: Owner, payload: object) =>
  app.inject({ method: 'POST', url: '/api/v1/subscribe', headers: bearer(owner.secret), payload });

const subscribers = async (owner: Owner) => {
  const response = await app.inject({
    method: 'GET',
    url: `/api/v1/apps/${owner.app.id}/subscribers`,
    headers: bearer(owner.user.token),
  });
  return (response.json() as { subscribers: { id: string; vapidPublicKey: string | null }[] }).subscribers;
};

const keyOf = async (owner: Owner) => {
  const response = await app.inject({ method: 'GET', url: '/api/v1/vapid-public-key', headers: bearer(owner.secret) });
  return (response.json() as { vapidPublicKey: string }).vapidPublicKey;
};

const isP256Point = (key: string) => {
  const ecdh = createECDH('prime256v1');
  ecdh.generateKeys();
  const point = Buffer.from(key, 'base64url');
  return point.length === 65 && point[0] === 0x04 && ecdh.computeSecret(point).length === 32;
};

t.test('rotating gives the app a new key everywhere, for the owner only', async (t) => {
  const owner = await ownerWithKey(app, 'subscribe_only');
  const first = owner.app.vapidPublicKey;

  const response = await rotate(owner.user.token, owner.app.id);
  t.equal(response.statusCode, 200);
  const rotated = (response.json() as { app: PublicApp }).app;
  t.equal(rotated.id, owner.app.id);
  t.not(rotated.vapidPublicKey, first, 'a new key');
  t.ok(isP256Point(rotated.vapidPublicKey), 'an uncompressed P-256 point');

  const shown = await app.inject({
    method: 'GET',
    url: `/api/v1/apps/${owner.app.id}`,
    headers: bearer(owner.user.token),
  });
  t.equal((shown.json() as { app: PublicApp }).app.vapidPublicKey, rotated.vapidPublicKey, 'GET /apps/:appId');
  const listed = await app.inject({ method: 'GET', url: '/api/v1/apps', headers: bearer(owner.user.token) });
  t.equal((listed.json() as { apps: PublicApp[] }).apps[0]?.vapidPublicKey, rotated.vapidPublicKey, 'GET /apps');
  t.equal(await keyOf(owner), rotated.vapidPublicKey, 'GET /vapid-public-key');

  const again = (await rotate(owner.user.token, owner.app.id)).json() as { app: PublicApp };
  t.not(again.app.vapidPublicKey, rotated.vapidPublicKey, 'each rotation makes another key');

  const stranger = await ownerWithKey(app);
  assertError(t, await rotate(stranger.user.token, owner.app.id), 'NOT_FOUND');
  assertError(t, await rotate(owner.user.token, '00000000-0000-4000-8000-000000000000'), 'NOT_FOUND');
  assertError(t, await rotate(owner.user.token, 'not-a-uuid'), 'NOT_FOUND');
  assertError(
    t,
    await app.inject({ method: 'POST', url: `/api/v1/apps/${owner.app.id}/vapid-key/rotate` }),
    'UNAUTHORIZED',
  );
  assertError(
    t,
    await app.inject({
      method: 'POST',
      url: `/api/v1/apps/${owner.app.id}/vapid-key/rotate`,
      headers: bearer(owner.secret),
    }),
    'INVALID_SESSION',
  );
  t.equal(await keyOf(owner), again.app.vapidPublicKey, 'refused rotations changed nothing');
  t.equal(await keyOf(stranger), stranger.app.vapidPublicKey, "the stranger's own app is untouched");
});

t.test('subscriptions record the key they were made with', async (t) => {
  const owner = await ownerWithKey(app, 'subscribe_only');
  const first = owner.app.vapidPublicKey;
  const before = fakeSubscription();
  t.equal((await subscribe(owner, before)).statusCode, 201, 'no applicationServerKey: the current key');

  const second = ((await rotate(owner.user.token, owner.app.id)).json() as { app: PublicApp }).app.vapidPublicKey;
  const withOld = fakeSubscription();
  const withNew = fakeSubscription();
  const without = fakeSubscription();
  t.equal((await subscribe(owner, { ...withOld, applicationServerKey: first })).statusCode, 201, 'an earlier key');
  t.equal((await subscribe(owner, { ...withNew, applicationServerKey: second })).statusCode, 201, 'the current key');
  t.equal((await subscribe(owner, without)).statusCode, 201);
  // Standard base64 with padding names the same key.
  const padded = Buffer.from(first, 'base64url').toString('base64');
  const standard = fakeSubscription();
  t.equal((await subscribe(owner, { ...standard, applicationServerKey: padded })).statusCode, 201, 'base64 form');

  const keys = new Map((await subscribers(owner)).map((s) => [s.id, s.vapidPublicKey]));
  const idOf = async (subscription: object) =>
    ((await subscribe(owner, subscription)).json() as { subscriber: { id: string } }).subscriber.id;
  t.equal(keys.get(await idOf({ ...before, applicationServerKey: first })), first, 'made before the rotation');
  t.equal(keys.get(await idOf({ ...withOld, applicationServerKey: first })), first);
  t.equal(keys.get(await idOf({ ...withNew, applicationServerKey: second })), second);
  t.equal(keys.get(await idOf({ ...without, applicationServerKey: second })), second);
  t.equal(keys.get(await idOf({ ...standard, applicationServerKey: first })), first);

  // Subscribing again records the key of that subscribe.
  const movedId = await idOf({ ...withOld, applicationServerKey: second });
  const afterMove = new Map((await subscribers(owner)).map((s) => [s.id, s.vapidPublicKey]));
  t.equal(afterMove.get(movedId), second, 'moved to the new key');
});

t.test('a key that is not one of the app’s is INVALID_INPUT and stores nothing', async (t) => {
  const owner = await ownerWithKey(app, 'subscribe_only');
  const other = await ownerWithKey(app, 'subscribe_only');
  const count = async () => (await subscribers(owner)).length;
  for (const applicationServerKey of [other.app.vapidPublicKey, '', 'not a key', 'A'.repeat(87)]) {
    assertError(t, await subscribe(owner, { ...fakeSubscription(), applicationServerKey }), 'INVALID_INPUT');
  }
  assertError(
    t,
    await subscribe(owner, { ...fakeSubscription(), applicationServerKey: 'B'.repeat(201) }),
    'INVALID_INPUT',
  );
  t.equal(await count(), 0, 'nothing stored');
  // The toJSON() shape with the key beside it, as the SDK sends it.
  const { endpoint, p256dh, auth } = fakeSubscription();
  const response = await subscribe(owner, {
    endpoint,
    keys: { p256dh, auth },
    applicationServerKey: owner.app.vapidPublicKey,
  });
  t.equal(response.statusCode, 201);
});
