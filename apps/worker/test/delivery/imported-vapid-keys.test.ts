import { createECDH } from 'node:crypto';
import { bearer, createKey } from '@webpush/testing';
import t from 'tap';
import { deliveryHarness, type Owner } from '../helper.js';

// Coming over with your subscribers (docs/migrating.md): subscriptions made elsewhere with a key pair
// the app was created with, imported, receive pushes signed with that pair. The stand-in binds each
// subscription to the key it was made with, as a browser's push service does, and refuses any other.
const harness = await deliveryHarness(t);
const { app, push } = harness;
await harness.startInProcessWorker();

/** The key pair of the "old service": the subscriptions below were made with its public key. */
const oldPair = () => {
  const ecdh = createECDH('prime256v1');
  ecdh.generateKeys();
  return {
    publicKey: ecdh.getPublicKey().toString('base64url'),
    privateKey: ecdh.getPrivateKey().toString('base64url'),
  };
};

/** A user's second app, created with `vapidKeys`, with a notify key: an Owner for the harness. */
const movedApp = async (owner: Owner, vapidKeys: { publicKey: string; privateKey: string }): Promise<Owner> => {
  const created = await app.inject({
    method: 'POST',
    url: '/api/v1/apps',
    headers: bearer(owner.user.token),
    payload: { name: 'Moved', vapidKeys },
  });
  if (created.statusCode !== 201) throw new Error(`create: ${created.statusCode} ${created.body}`);
  const moved = (created.json() as { app: Owner['app'] }).app;
  const key = await createKey(app, owner.user.token, moved.id, 'notify');
  return { ...owner, app: moved, key, secret: key.secret };
};

const keysOfPushes = (notificationId: string) => {
  const keys = new Map<string, string>();
  for (const message of push.received) {
    if ((JSON.parse(message.payload) as { id: string }).id === notificationId)
      keys.set(message.subscriptionId, message.vapidPublicKey);
  }
  return keys;
};

t.test('imported subscriptions are pushed with the imported key pair, before and after a rotation', async (t) => {
  const pair = oldPair();
  const owner = await movedApp(await harness.owner(), pair);
  t.equal(owner.app.vapidPublicKey, pair.publicKey);
  const browsers = [0, 1, 2].map(() => push.subscribe({ applicationServerKey: pair.publicKey }));
  const imported = await app.inject({
    method: 'POST',
    url: `/api/v1/apps/${owner.app.id}/subscribers/import`,
    headers: bearer(owner.user.token),
    payload: {
      subscribers: browsers.map((browser) => ({
        endpoint: browser.endpoint,
        keys: { p256dh: browser.p256dh, auth: browser.auth },
      })),
    },
  });
  t.strictSame(imported.json(), { imported: 3, updated: 0, rejected: [] });

  const sent = await harness.notify(owner, { title: 'Still here', body: 'Nothing to do on your side' });
  t.match(await harness.finished(owner, sent.id), { status: 'completed', targets: 3, sent: 3, failed: 0 });
  t.strictSame(keysOfPushes(sent.id), new Map(browsers.map((browser) => [browser.id, pair.publicKey])));
  for (const browser of browsers) {
    const [message] = push.deliveredTo(browser.id);
    t.match(JSON.parse(message?.payload ?? '{}'), { title: 'Still here' }, 'decrypted by the browser');
  }

  const rotated = await app.inject({
    method: 'POST',
    url: `/api/v1/apps/${owner.app.id}/vapid-key/rotate`,
    headers: bearer(owner.user.token),
  });
  const second = (rotated.json() as { app: { vapidPublicKey: string } }).app.vapidPublicKey;
  const fresh = push.subscribe({ applicationServerKey: second });
  await app.inject({
    method: 'POST',
    url: `/api/v1/apps/${owner.app.id}/subscribers/import`,
    headers: bearer(owner.user.token),
    payload: { subscribers: [{ endpoint: fresh.endpoint, keys: { p256dh: fresh.p256dh, auth: fresh.auth } }] },
  });
  const after = await harness.notify(owner, { title: 'After rotation', body: 'Hello' });
  t.match(await harness.finished(owner, after.id), { status: 'completed', targets: 4, sent: 4, failed: 0 });
  t.strictSame(
    keysOfPushes(after.id),
    new Map([...browsers.map((browser) => [browser.id, pair.publicKey] as const), [fresh.id, second]]),
    'the imported pair for its subscriptions, the new one for the subscription made after the rotation',
  );
  t.strictSame(push.protocolErrors, [], 'the stand-in refused no push');
});
