import { CLICK_TOKEN_LENGTH, createEncryptionPool, MAX_BROWSER_PAYLOAD_BYTES } from '@webpush/push';
import { assertError, bearer, richNotificationFields } from '@webpush/testing';
import t, { type Test } from 'tap';
import { deliveryHarness, type Owner } from '../helper.js';
import { parseDeclarativePushMessage } from './declarative-message.js';

// Rich and declarative notifications (docs/sending.md): what the browsers receive, as the
// push stand-in decrypts it (RFC 8291), byte for byte; and the click links of declarative payloads.
const harness = await deliveryHarness(t, { DELIVERY_CHUNK_SIZE: '3', PUSH_CONCURRENCY: '2' });
const { app, push } = harness;
const publicUrl = harness.config.publicUrl;

const rich = {
  title: 'Sale 👋',
  body: 'Everything "half" price',
  image: 'https://shop.example/banner.png',
  icon: 'https://shop.example/icon.png',
  ...richNotificationFields(),
  data: { campaign: 'autumn', nested: { n: 3 } },
};

const messagesTo = (subscriberIds: string[]) =>
  subscriberIds.map((id) => push.received.filter((message) => message.subscriptionId === id));

async function setFormat(owner: Owner, body: object) {
  return app.inject({
    method: 'PATCH',
    url: `/api/v1/apps/${owner.app.id}`,
    headers: bearer(owner.user.token),
    payload: body,
  });
}

async function engagement(owner: Owner, id: string) {
  await app.engagement.flush();
  const response = await app.inject({
    method: 'GET',
    url: `/api/v1/notifications/${id}`,
    headers: bearer(owner.secret),
  });
  const { clicked, actionClicks } = response.json<{
    notification: { clicked: number; actionClicks: Record<string, number> };
  }>().notification;
  return { clicked, actionClicks };
}

// Closed by the harness at the end; one test stops it to run its own.
const worker = await harness.startInProcessWorker();

t.test('a legacy payload carries each rich field given, beside title, body, url, icon, badge and id', async (t) => {
  const owner = await harness.owner();
  const subscribers = await harness.subscribe(owner, 2);
  const { id } = await harness.notify(owner, { ...rich, url: 'https://shop.example/sale' });
  t.match(await harness.finished(owner, id), { status: 'completed', sent: 2 });
  const expected =
    `{"title":"Sale 👋","body":"Everything \\"half\\" price","url":"https://shop.example/sale",` +
    `"icon":"https://shop.example/icon.png","image":"https://shop.example/banner.png",` +
    `"actions":[{"action":"buy","title":"Buy now","url":"https://shop.example/buy","icon":"https://shop.example/cart.png"},` +
    `{"action":"later","title":"Later"}],"requireInteraction":true,"silent":false,"renotify":true,"tag":"sale-1",` +
    `"data":{"nested":{"n":3},"campaign":"autumn"},"id":"${id}"}`;
  for (const messages of messagesTo(subscribers.map((s) => s.id))) {
    t.equal(messages.length, 1);
    // `data` comes back from jsonb with its keys in jsonb's order (shorter first): the same object.
    t.equal(messages[0]?.payload, expected, 'every field given, in the contract order');
  }

  const plain = await harness.notify(owner, { title: 'T', body: 'B' });
  await harness.finished(owner, plain.id);
  const [first] = messagesTo([subscribers[0]?.id ?? '']);
  t.equal(first?.[1]?.payload, `{"title":"T","body":"B","id":"${plain.id}"}`, 'without rich fields: as before');
});

t.test('PATCH /apps/{appId}: pushFormat and defaultUrl', async (t) => {
  const owner = await harness.owner();
  const initial = await app.inject({
    method: 'GET',
    url: `/api/v1/apps/${owner.app.id}`,
    headers: bearer(owner.user.token),
  });
  t.match(initial.json(), { app: { pushFormat: 'legacy', defaultUrl: null } }, 'new apps are legacy');
  assertError(t, await setFormat(owner, { pushFormat: 'declarative' }), 'MISSING_FIELDS');
  assertError(t, await setFormat(owner, { pushFormat: 'safari' }), 'INVALID_INPUT');
  assertError(t, await setFormat(owner, { defaultUrl: 'http://shop.example/' }), 'INVALID_URL');
  const set = await setFormat(owner, { pushFormat: 'declarative', defaultUrl: 'https://shop.example/' });
  t.equal(set.statusCode, 200);
  t.match(set.json(), { app: { pushFormat: 'declarative', defaultUrl: 'https://shop.example/' } });
  assertError(t, await setFormat(owner, { defaultUrl: null }), 'MISSING_FIELDS', {});
  const list = await app.inject({ method: 'GET', url: '/api/v1/apps', headers: bearer(owner.user.token) });
  t.match(list.json(), { apps: [{ pushFormat: 'declarative', defaultUrl: 'https://shop.example/' }] });
  const back = await setFormat(owner, { pushFormat: 'legacy', defaultUrl: null });
  t.match(back.json(), { app: { pushFormat: 'legacy', defaultUrl: null } }, 'null clears it');
});

async function declarativeSend(t: Test) {
  const owner = await harness.owner();
  const patched = await setFormat(owner, { pushFormat: 'declarative', defaultUrl: 'https://shop.example/home' });
  t.equal(patched.statusCode, 200);
  const subscribers = await harness.subscribe(owner, 4);
  const { id } = await harness.notify(owner, rich);
  t.match(await harness.finished(owner, id), { status: 'completed', sent: 4 });
  const messages = messagesTo(subscribers.map((s) => s.id)).map((list) => {
    t.equal(list.length, 1, 'one message per subscriber');
    return list[0]?.payload ?? '';
  });
  return { owner, subscribers, id, messages };
}

t.test('a declarative app: the W3C declarative push message, with click links per subscriber', async (t) => {
  const { owner, subscribers, id, messages } = await declarativeSend(t);
  const linkPattern = new RegExp(`^${publicUrl.replaceAll('.', '\\.')}/c/[A-Za-z0-9_-]{${CLICK_TOKEN_LENGTH}}$`);
  const links = new Set<string>();
  messages.forEach((payload) => {
    const parsed = parseDeclarativePushMessage(Buffer.from(payload, 'utf8'), publicUrl);
    t.equal(parsed.mutable, true);
    const json = JSON.parse(payload);
    t.equal(json.web_push, 8030, 'the number 8030');
    const { notification } = json;
    t.match(notification.navigate, linkPattern);
    t.strictSame(
      {
        ...notification,
        navigate: 'LINK',
        actions: notification.actions.map((a: object) => ({ ...a, navigate: 'LINK' })),
      },
      {
        title: rich.title,
        navigate: 'LINK',
        body: rich.body,
        icon: rich.icon,
        image: rich.image,
        tag: rich.tag,
        silent: false,
        requireInteraction: true,
        renotify: true,
        actions: [
          { action: 'buy', title: 'Buy now', navigate: 'LINK', icon: 'https://shop.example/cart.png' },
          { action: 'later', title: 'Later', navigate: 'LINK' },
        ],
        data: { id, data: rich.data },
      },
      'every field that applies',
    );
    t.strictSame(Object.keys(json), ['web_push', 'notification', 'mutable']);
    for (const link of [notification.navigate, ...notification.actions.map((a: { navigate: string }) => a.navigate)]) {
      t.match(link, linkPattern);
      links.add(link);
    }
    t.ok(Buffer.byteLength(payload) <= MAX_BROWSER_PAYLOAD_BYTES);
  });
  t.equal(links.size, 12, 'a link of its own per subscriber and button');

  const [first, second] = messages.map((payload) => JSON.parse(payload).notification);
  const open = (link: string) => app.inject({ method: 'GET', url: new URL(link).pathname });
  const main = await open(first.navigate);
  t.equal(main.statusCode, 302);
  t.equal(main.headers.location, 'https://shop.example/home', "no url: the app's defaultUrl");
  const buy = await open(first.actions[0].navigate);
  t.equal(buy.headers.location, 'https://shop.example/buy', "the button's url");
  const later = await open(first.actions[1].navigate);
  t.equal(later.headers.location, 'https://shop.example/home', 'a button without url: the notification page');
  await open(first.actions[0].navigate);
  await open(second.actions[0].navigate);
  t.strictSame(await engagement(owner, id), { clicked: 2, actionClicks: { buy: 2, later: 1 } }, 'once per subscriber');
  t.ok(subscribers.length === 4);

  // A token that does not verify: 404 with the catalogue's body, not the dashboard.
  const token = new URL(first.navigate).pathname.slice(3);
  const flip = (at: number) => `${token.slice(0, at)}${token[at] === 'A' ? 'B' : 'A'}${token.slice(at + 1)}`;
  const last = token.length - 1;
  for (const path of [`/c/${flip(10)}`, `/c/${flip(40)}`, `/c/${flip(last)}`, '/c/nope', `/c/${token}x`]) {
    const response = await app.inject({ method: 'GET', url: path, headers: { accept: 'text/html' } });
    assertError(t, response, 'NOT_FOUND');
  }
  const bare = await app.inject({ method: 'GET', url: '/c/', headers: { accept: 'text/html' } });
  t.equal(bare.statusCode, 404, '/c/ is not the dashboard');
  t.match(bare.headers['content-type'], /json/);

  // The notification is gone (its app deleted): 404.
  await harness.database.sql`delete from notifications where id = ${id}`;
  assertError(t, await open(second.navigate), 'NOT_FOUND');
});

t.test('declarative payloads are the same through the encryption threads and without them', async (t) => {
  const pool = createEncryptionPool({ threads: 2 });
  t.teardown(() => pool.close());
  await worker.close();
  const threaded = await harness.startInProcessWorker({ deps: { encryption: pool } });
  const withThreads = await declarativeSend(t);
  await threaded.close();
  const config = { ...harness.config, delivery: { ...harness.config.delivery, cryptoThreads: 0 } };
  const plain = await harness.startInProcessWorker({ config });
  const withoutThreads = await declarativeSend(t);
  await plain.close();
  for (const { messages, id } of [withThreads, withoutThreads]) {
    for (const payload of messages) {
      const parsed = parseDeclarativePushMessage(Buffer.from(payload, 'utf8'), publicUrl);
      t.equal((parsed.notification.data as { id: string }).id, id);
      const response = await app.inject({ method: 'GET', url: parsed.notification.navigate.pathname });
      t.equal(response.statusCode, 302, 'every click link verifies');
    }
  }
  t.strictSame(push.protocolErrors, []);
});

t.test('the 3,993-byte rule holds for the declarative payload as delivered, links included', async (t) => {
  await harness.startInProcessWorker();
  const owner = await harness.owner();
  await setFormat(owner, { pushFormat: 'declarative', defaultUrl: 'https://shop.example/home' });
  const subscribers = await harness.subscribe(owner, 1);
  const base = { title: 'T', body: '', actions: rich.actions, data: { k: 'x'.repeat(900) } };
  // Grow the body until the send is refused: the last accepted one, delivered, is at most 3,993 bytes.
  let low = 0;
  let high = 3_000;
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    const response = await app.inject({
      method: 'POST',
      url: '/api/v1/notify',
      headers: bearer(owner.secret),
      payload: { ...base, body: 'b'.repeat(mid), sendAt: new Date(Date.now() + 3_600_000).toISOString() },
    });
    if (response.statusCode === 202) low = mid;
    else {
      assertError(t, response, 'PAYLOAD_TOO_LARGE');
      high = mid - 1;
    }
  }
  const { id } = await harness.notify(owner, { ...base, body: 'b'.repeat(low) });
  await harness.finished(owner, id);
  const [messages] = messagesTo([subscribers[0]?.id ?? '']);
  const delivered = messages?.find((message) => message.payload.includes(id))?.payload ?? '';
  t.equal(Buffer.byteLength(delivered, 'utf8'), MAX_BROWSER_PAYLOAD_BYTES, 'the largest accepted is exactly 3,993');
  // The same content is accepted for a legacy app (no links): the rule is on what is delivered.
  await setFormat(owner, { pushFormat: 'legacy' });
  const legacy = await app.inject({
    method: 'POST',
    url: '/api/v1/notify',
    headers: bearer(owner.secret),
    payload: { ...base, body: 'b'.repeat(low + 1) },
  });
  t.equal(legacy.statusCode, 202);
});
