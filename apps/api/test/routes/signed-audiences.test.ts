import { createHmac } from 'node:crypto';
import { errorCatalogue, errorDetails } from '@webpush/errors';
import t, { type Test } from 'tap';
import { assertError } from '../assertions.js';
import { bearer, buildTestApp, createKey, fakeSubscription, ownerWithKey } from '../helper.js';

// Signed audiences: an app may require tags set with a subscribe_only key to be signed like uids
// (`requireSignedTags`), and signatures may carry an expiry, which the app may require
// (`signaturesExpire`). The 1.1 uid signature (HMAC of the uid alone) stays valid until it does.
const { app } = await buildTestApp(t, { RATE_LIMIT_API_KEY_MAX: '1000' });
const owner = await ownerWithKey(app, 'subscribe_only');
const pageKey = owner.secret;
const serverKey = (await createKey(app, owner.user.token, owner.app.id, 'notify')).secret;
const secret = (
  await app.inject({
    method: 'POST',
    url: `/api/v1/apps/${owner.app.id}/identity-secret`,
    headers: bearer(owner.user.token),
  })
).json().secret as string;

// The customer's server, as docs/sdk.md shows it.
const hmac = (message: string) => createHmac('sha256', secret).update(message).digest('hex');
const signUid = (uid: string, expires?: number) => hmac(expires === undefined ? uid : `${uid}\0${expires}`);
const signTags = (tags: Record<string, string>, expires?: number) => {
  const canonical = JSON.stringify(Object.fromEntries(Object.entries(tags).sort(([a], [b]) => (a < b ? -1 : 1))));
  return hmac(expires === undefined ? canonical : `${canonical}\0${expires}`);
};
const inAnHour = () => Math.floor(Date.now() / 1000) + 3600;

const subscribe = (key: string, audience: Record<string, unknown>) =>
  app.inject({
    method: 'POST',
    url: '/api/v1/subscribe',
    headers: bearer(key),
    payload: { ...fakeSubscription(), ...audience },
  });
const settings = (changes: Record<string, boolean>) =>
  app.inject({
    method: 'PATCH',
    url: `/api/v1/apps/${owner.app.id}`,
    headers: bearer(owner.user.token),
    payload: changes,
  });
const refusedAs = (t: Test, response: Awaited<ReturnType<typeof subscribe>>, message: string) => {
  t.equal(response.statusCode, 403);
  t.strictSame(response.json(), { error: message, code: 'INVALID_UID_SIGNATURE' });
};

t.test('both settings are off for a new app, and tags need no signature then', async (t) => {
  const found = await app.inject({
    method: 'GET',
    url: `/api/v1/apps/${owner.app.id}`,
    headers: bearer(owner.user.token),
  });
  t.match(found.json().app, { requireSignedTags: false, signaturesExpire: false });
  t.equal((await subscribe(pageKey, { tags: { plan: 'enterprise' } })).statusCode, 201);
});

t.test('requireSignedTags: tags from a subscribe_only key need a valid tagsSignature', async (t) => {
  const updated = await settings({ requireSignedTags: true });
  t.equal(updated.statusCode, 200);
  t.match(updated.json().app, { requireSignedTags: true, signaturesExpire: false });
  const tags = { plan: 'pro', lang: 'ja' };
  const tagsMessage = errorDetails.TAGS_SIGNATURE_INVALID.message;
  refusedAs(t, await subscribe(pageKey, { tags: { plan: 'enterprise' } }), tagsMessage);
  refusedAs(t, await subscribe(pageKey, { tags: { plan: 'enterprise' }, tagsSignature: signTags(tags) }), tagsMessage);
  t.equal((await subscribe(pageKey, { tags, tagsSignature: signTags(tags) })).statusCode, 201, 'signed');
  const reordered = { lang: 'ja', plan: 'pro' };
  t.equal(
    (await subscribe(pageKey, { tags: reordered, tagsSignature: signTags(tags) })).statusCode,
    201,
    'any key order',
  );
  t.equal((await subscribe(serverKey, { tags: { plan: 'enterprise' } })).statusCode, 201, 'a notify key needs none');
  t.equal((await subscribe(pageKey, {})).statusCode, 201, 'no tags, nothing to sign');
});

t.test('an expiry: optional while signaturesExpire is off, then required', async (t) => {
  const uidMessage = errorCatalogue.INVALID_UID_SIGNATURE.message;
  const expiredMessage = errorDetails.SIGNATURE_EXPIRED.message;
  t.equal((await subscribe(pageKey, { uid: 'user-1', uidSignature: signUid('user-1') })).statusCode, 201, '1.1 form');
  const expires = inAnHour();
  t.equal(
    (await subscribe(pageKey, { uid: 'user-1', uidSignature: signUid('user-1', expires), signatureExpires: expires }))
      .statusCode,
    201,
    'with an expiry ahead',
  );
  refusedAs(
    t,
    await subscribe(pageKey, { uid: 'user-1', uidSignature: signUid('user-1'), signatureExpires: expires }),
    uidMessage,
  );
  const past = Math.floor(Date.now() / 1000) - 1;
  refusedAs(
    t,
    await subscribe(pageKey, { uid: 'user-1', uidSignature: signUid('user-1', past), signatureExpires: past }),
    expiredMessage,
  );

  t.equal((await settings({ signaturesExpire: true })).json().app.signaturesExpire, true);
  refusedAs(t, await subscribe(pageKey, { uid: 'user-1', uidSignature: signUid('user-1') }), expiredMessage);
  const tags = { plan: 'pro' };
  refusedAs(t, await subscribe(pageKey, { tags, tagsSignature: signTags(tags) }), expiredMessage);
  const both = await subscribe(pageKey, {
    uid: 'user-2',
    uidSignature: signUid('user-2', expires),
    tags,
    tagsSignature: signTags(tags, expires),
    signatureExpires: expires,
  });
  t.equal(both.statusCode, 201, 'uid and tags signed over the same expiry');
  t.equal((await subscribe(serverKey, { uid: 'user-3' })).statusCode, 201, 'a notify key needs none');

  await settings({ signaturesExpire: false, requireSignedTags: false });
  t.equal((await subscribe(pageKey, { uid: 'user-1', uidSignature: signUid('user-1') })).statusCode, 201, 'off again');
});

t.test('a wrong or missing uid signature is still the plain INVALID_UID_SIGNATURE', async (t) => {
  assertError(t, await subscribe(pageKey, { uid: 'user-1' }), 'INVALID_UID_SIGNATURE');
  assertError(t, await subscribe(pageKey, { uid: 'user-1', uidSignature: signUid('user-2') }), 'INVALID_UID_SIGNATURE');
});
