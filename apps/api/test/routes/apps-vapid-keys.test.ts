import { createECDH } from 'node:crypto';
import { vapidKeyContext } from '@webpush/secrets';
import t from 'tap';
import { assertError } from '../assertions.js';
import { bearer, buildTestApp, registerUser } from '../helper.js';

// POST /apps with `vapidKeys`: an app that signs with a key pair brought from elsewhere
// (docs/migrating.md). Delivery with it: apps/worker/test/delivery/imported-vapid-keys.test.ts.
const ctx = await buildTestApp(t, { RATE_LIMIT_REGISTER_MAX: '1000' });
const { app } = ctx;
const sql = ctx.database.sql;

const keyPair = () => {
  const ecdh = createECDH('prime256v1');
  ecdh.generateKeys();
  return {
    publicKey: ecdh.getPublicKey().toString('base64url'),
    privateKey: ecdh.getPrivateKey().toString('base64url'),
  };
};

const createWith = (token: string, vapidKeys: unknown) =>
  app.inject({
    method: 'POST',
    url: '/api/v1/apps',
    headers: bearer(token),
    payload: { name: 'Moved here', vapidKeys } as object,
  });

const appCount = async (userId: string) =>
  (await sql`select count(*)::int as n from apps where user_id = ${userId}`)[0]?.n as number;

t.test('the app signs with the pair it was given, its private key sealed like a generated one', async (t) => {
  const user = await registerUser(app);
  const pair = keyPair();
  const response = await createWith(user.token, pair);
  t.equal(response.statusCode, 201);
  const created = (response.json() as { app: { id: string; vapidPublicKey: string } }).app;
  t.equal(created.vapidPublicKey, pair.publicKey);
  t.notOk(response.body.includes(pair.privateKey), 'the private key is never shown');

  const [row] = await sql<
    { sealed: string }[]
  >`select vapid_private_key_sealed as sealed from apps where id = ${created.id}`;
  t.match(row?.sealed, /^v2\./, 'sealed, bound to the app');
  t.notOk(row?.sealed.includes(pair.privateKey), 'not stored in the clear');
  t.equal(app.secrets.open(row?.sealed ?? '', vapidKeyContext(created.id)), pair.privateKey);

  // Rotation works as for a generated pair: the brought pair is kept, retired, for its subscriptions.
  const rotated = await app.inject({
    method: 'POST',
    url: `/api/v1/apps/${created.id}/vapid-key/rotate`,
    headers: bearer(user.token),
  });
  t.equal(rotated.statusCode, 200);
  t.not((rotated.json() as { app: { vapidPublicKey: string } }).app.vapidPublicKey, pair.publicKey);
  const retired = await sql`select public_key, private_key_sealed from retired_vapid_keys where app_id = ${created.id}`;
  t.equal(retired[0]?.public_key, pair.publicKey, 'the brought key is retired, not lost');
});

t.test('standard base64 with padding names the same pair', async (t) => {
  const user = await registerUser(app);
  const pair = keyPair();
  const response = await createWith(user.token, {
    publicKey: Buffer.from(pair.publicKey, 'base64url').toString('base64'),
    privateKey: Buffer.from(pair.privateKey, 'base64url').toString('base64'),
  });
  t.equal(response.statusCode, 201);
  t.equal((response.json() as { app: { vapidPublicKey: string } }).app.vapidPublicKey, pair.publicKey);
});

t.test('a pair that does not hold together is INVALID_INPUT, and no app is made', async (t) => {
  const user = await registerUser(app);
  const pair = keyPair();
  const other = keyPair();
  const point = Buffer.from(pair.publicKey, 'base64url');
  const offCurve = Buffer.from(point);
  offCurve[64] = (offCurve[64] ?? 0) ^ 1;
  const compressed = Buffer.concat([Buffer.from([2 + ((point[64] ?? 0) & 1)]), point.subarray(1, 33)]);
  const order = 'FFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551';
  const cases: [string, unknown][] = [
    ['another pair’s private key', { publicKey: pair.publicKey, privateKey: other.privateKey }],
    ['a private key of 31 bytes', { ...pair, privateKey: Buffer.alloc(31, 7).toString('base64url') }],
    ['a private key of 33 bytes', { ...pair, privateKey: Buffer.alloc(33, 7).toString('base64url') }],
    ['a private key of zero', { ...pair, privateKey: Buffer.alloc(32).toString('base64url') }],
    ['a private key of the group order', { ...pair, privateKey: Buffer.from(order, 'hex').toString('base64url') }],
    ['a public key off the curve', { ...pair, publicKey: offCurve.toString('base64url') }],
    ['a compressed public key', { ...pair, publicKey: compressed.toString('base64url') }],
    ['a public key of 64 bytes', { ...pair, publicKey: point.subarray(1).toString('base64url') }],
    ['not base64', { ...pair, privateKey: 'not a key!' }],
    ['a number', { ...pair, privateKey: 12 }],
    ['not an object', 'keys'],
  ];
  for (const [label, vapidKeys] of cases) {
    const response = await createWith(user.token, vapidKeys);
    t.equal(response.statusCode, 400, label);
    assertError(t, response, 'INVALID_INPUT');
  }
  assertError(t, await createWith(user.token, { publicKey: pair.publicKey }), 'MISSING_FIELDS');
  assertError(t, await createWith(user.token, { publicKey: pair.publicKey, privateKey: '' }), 'MISSING_FIELDS');
  t.equal(await appCount(user.user.id), 0, 'nothing was created');
});
