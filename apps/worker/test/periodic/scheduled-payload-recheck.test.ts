import { randomUUID } from 'node:crypto';
import { bearer } from '@webpush/testing';
import t, { type Test } from 'tap';
import { deliveryHarness, type Owner } from '../helper.js';

// A scheduled send is checked against the 3,993-byte whole-payload rule again when it starts: its
// app may have switched to Declarative Web Push since it was accepted, and a declarative message
// (click links) is bigger than the legacy JSON of the same content. Over the rule it ends `failed`
// with `errorCode: "PAYLOAD_TOO_LARGE"`, nothing sent, instead of pushing a payload push services
// refuse. docs/sending.md, "Scheduled sends".
const harness = await deliveryHarness(t, { SCHEDULER_INTERVAL_MS: '200' });
const { app, push } = harness;
await harness.startInProcessWorker();

// A legacy payload of exactly 3,993 bytes ({"title":…,"body":…,"data":…,"id":"<uuid>"}), the largest accepted.
const data = { k: 'x'.repeat(1_000) };
const room = 3_993 - JSON.stringify({ title: '', body: '', data, id: randomUUID() }).length;
const largest = { title: 't'.repeat(2_000), body: 'b'.repeat(room - 2_000), data };
const inTwoSeconds = () => new Date(Date.now() + 2_000).toISOString();

async function switchToDeclarative(t: Test, owner: Owner) {
  const response = await app.inject({
    method: 'PATCH',
    url: `/api/v1/apps/${owner.app.id}`,
    headers: bearer(owner.user.token),
    payload: { pushFormat: 'declarative', defaultUrl: 'https://shop.example/home' },
  });
  t.equal(response.statusCode, 200, 'the app switched to declarative');
}

t.test('accepted as legacy, due after a switch to declarative: failed, PAYLOAD_TOO_LARGE, nothing sent', async (t) => {
  const owner = await harness.owner();
  const [subscription] = await harness.subscribe(owner, 1);
  if (!subscription) throw new Error('no subscription');
  const big = await harness.notify(owner, { ...largest, sendAt: inTwoSeconds() });
  const small = await harness.notify(owner, { title: 'Small', body: 'fits either way', sendAt: inTwoSeconds() });
  await switchToDeclarative(t, owner);

  const refused = (await harness.finished(owner, big.id, 15_000)) as Awaited<ReturnType<typeof harness.finished>> & {
    errorCode?: string;
  };
  t.match(refused, { status: 'failed', targets: 0, sent: 0, failed: 0, errorCode: 'PAYLOAD_TOO_LARGE' });
  t.match(await harness.finished(owner, small.id, 15_000), { status: 'completed', targets: 1, sent: 1 });

  const delivered = push.deliveredTo(subscription.id).map((message) => message.payload);
  t.equal(delivered.length, 1, 'only the small send reached the browser');
  t.match(delivered[0], /"web_push":8030/, 'as a declarative message');

  const listed = await app.inject({
    method: 'GET',
    url: `/api/v1/apps/${owner.app.id}/notifications`,
    headers: bearer(owner.user.token),
  });
  const row = (listed.json() as { notifications: { id: string; errorCode?: string }[] }).notifications.find(
    (notification) => notification.id === big.id,
  );
  t.equal(row?.errorCode, 'PAYLOAD_TOO_LARGE', 'the reason is in the history too');
});

t.test('the same send on an app that stayed legacy is sent', async (t) => {
  const owner = await harness.owner();
  const [subscription] = await harness.subscribe(owner, 1);
  if (!subscription) throw new Error('no subscription');
  const big = await harness.notify(owner, { ...largest, sendAt: inTwoSeconds() });
  t.match(await harness.finished(owner, big.id, 15_000), { status: 'completed', sent: 1 });
  const [message] = push.deliveredTo(subscription.id);
  t.equal(Buffer.byteLength(message?.payload ?? '', 'utf8'), 3_993, 'exactly 3,993 bytes delivered');
});
