import { bearer } from '@webpush/testing';
import t from 'tap';
import { deliveryHarness, type Owner } from '../helper.js';

// Segments, translations and the app badge as the browsers receive them (docs/sending.md): each
// push decrypted by the push stand-in (RFC 8291), its text chosen by the subscription's language.
const harness = await deliveryHarness(t, { DELIVERY_CHUNK_SIZE: '3', PUSH_CONCURRENCY: '2' });
const { app, push } = harness;
await harness.startInProcessWorker();

async function subscribe(owner: Owner, fields: Record<string, unknown>) {
  const subscription = push.subscribe();
  const { endpoint, p256dh, auth } = subscription;
  const response = await app.inject({
    method: 'POST',
    url: '/api/v1/subscribe',
    headers: bearer(owner.secret),
    payload: { endpoint, p256dh, auth, ...fields },
  });
  if (response.statusCode !== 201) throw new Error(`subscribe: ${response.statusCode} ${response.body}`);
  return subscription;
}

const received = (subscription: { id: string }) =>
  push.received.filter((message) => message.subscriptionId === subscription.id).map((m) => JSON.parse(m.payload));

const send = {
  title: 'Sale',
  body: 'Today only',
  url: 'https://shop.example/sale',
  appBadge: 5,
  translations: {
    ja: { title: 'セール', body: '本日限定' },
    'PT-br': { title: 'Promoção', url: 'https://shop.example/pt' },
  },
};

t.test(
  'a legacy app: each subscription gets its language, the segment decides who, the badge rides along',
  async (t) => {
    const owner = await harness.owner();
    const jaJP = await subscribe(owner, { language: 'ja-JP' });
    const ja = await subscribe(owner, { language: 'ja' });
    const ptBR = await subscribe(owner, { language: 'pt-BR' });
    const en = await subscribe(owner, { language: 'en-US' });
    const unknown = await subscribe(owner, {});
    const fr = await subscribe(owner, { language: 'fr-FR' });
    const { id, targets } = await harness.notify(owner, { ...send, segment: { not: { language: 'fr' } } });
    t.equal(targets, 5);
    t.match(await harness.finished(owner, id), { status: 'completed', sent: 5, failed: 0, expired: 0 });

    const japanese = { title: 'セール', body: '本日限定', url: 'https://shop.example/sale', appBadge: 5, id };
    t.strictSame(received(jaJP), [japanese], 'ja-JP: the entry of its first subtag');
    t.strictSame(received(ja), [japanese], 'ja: its own entry');
    t.strictSame(
      received(ptBR),
      [{ title: 'Promoção', body: 'Today only', url: 'https://shop.example/pt', appBadge: 5, id }],
      'pt-BR: its entry (keys compare case-insensitively); the body it leaves out is the send’s',
    );
    const own = { title: 'Sale', body: 'Today only', url: 'https://shop.example/sale', appBadge: 5, id };
    t.strictSame(received(en), [own], 'no entry for en: the send’s own text');
    t.strictSame(received(unknown), [own], 'no language: the send’s own text');
    t.strictSame(received(fr), [], 'outside the segment: nothing');
  },
);

t.test('a declarative app: the chosen text in `notification`, the badge as top-level `app_badge`', async (t) => {
  const owner = await harness.owner();
  const patched = await app.inject({
    method: 'PATCH',
    url: `/api/v1/apps/${owner.app.id}`,
    headers: bearer(owner.user.token),
    payload: { pushFormat: 'declarative', defaultUrl: 'https://shop.example/' },
  });
  t.equal(patched.statusCode, 200);
  const ja = await subscribe(owner, { language: 'ja-JP' });
  const en = await subscribe(owner, { language: 'en' });
  const { id } = await harness.notify(owner, { ...send, appBadge: 0 });
  t.match(await harness.finished(owner, id), { status: 'completed', sent: 2 });
  const [japanese] = received(ja);
  t.match(japanese, {
    web_push: 8030,
    app_badge: 0,
    mutable: true,
    notification: { title: 'セール', body: '本日限定' },
  });
  const [english] = received(en);
  t.match(english, { web_push: 8030, app_badge: 0, notification: { title: 'Sale', body: 'Today only' } });
  t.strictSame(Object.keys(english), ['web_push', 'notification', 'app_badge', 'mutable']);
});

t.test('a scheduled send resolves its segment when it starts', async (t) => {
  const owner = await harness.owner();
  await subscribe(owner, { language: 'en', tags: { plan: 'pro' } });
  const sendAt = new Date(Date.now() + 1_500).toISOString();
  const segment = { and: [{ tag: 'plan', equals: 'pro' }, { language: 'de' }] };
  const scheduled = await harness.notify(owner, { title: 'Hallo', body: 'Später', segment, sendAt });
  t.equal(scheduled.targets, 0, 'counted when it starts');
  const later = await subscribe(owner, { language: 'de-AT', tags: { plan: 'pro' } });
  t.match(await harness.finished(owner, scheduled.id), { status: 'completed', targets: 1, sent: 1 });
  t.match(received(later), [{ title: 'Hallo', body: 'Später' }]);
});
