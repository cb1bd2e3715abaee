import { appSubscriberCounted, subscriberCounted } from '@webpush/testing';
import t from 'tap';
import { deliveryHarness } from '../helper.js';

// A subscription whose pushes are refused permanently several times in a row, for a reason of its
// own (a 4xx that is not 429 nor about the sender's VAPID key, JWT, payload size or headers), is
// retired as an expired one is: no longer targeted, its slot freed. A sent push resets the count.
// docs/sending.md, "Subscriptions refused again and again"; RETIRE_AFTER_REFUSALS.
const harness = await deliveryHarness(t, { RETIRE_AFTER_REFUSALS: '3' });
const { push, database } = harness;
await harness.startInProcessWorker();

const rows = async (endpoints: string[]) => {
  const found = await database.sql<{ endpoint: string; status: string; refusals: number }[]>`
    select endpoint, status, refusals from subscriptions where endpoint = any(${endpoints})`;
  return endpoints.map((endpoint) => {
    const row = found.find((r) => r.endpoint === endpoint);
    return row ? [row.status, row.refusals] : null;
  });
};

t.test('refused three times in a row: retired and its slot freed; a success resets the count', async (t) => {
  const owner = await harness.owner();
  const [refused, flaky, fine, big, badJwt] = await harness.subscribe(owner, 5);
  if (!refused || !flaky || !fine || !big || !badJwt) throw new Error('no subscriptions');
  const endpoints = [refused, flaky, fine, big, badJwt].map((s) => s.endpoint);
  push.script(refused.id, { status: 400, times: Number.POSITIVE_INFINITY });
  push.script(flaky.id, { status: 400, times: 2 });
  // The sender's own errors never count against a subscription.
  push.script(big.id, { status: 413, times: Number.POSITIVE_INFINITY });
  push.script(badJwt.id, { status: 403, times: Number.POSITIVE_INFINITY });
  t.strictSame(await subscriberCounted(database.sql, owner.user.user.id), { counter: 5, real: 5 });

  const send = async (n: number) => {
    const { id } = await harness.notify(owner, { title: `Send ${n}`, body: 'to everyone' });
    return harness.finished(owner, id);
  };
  t.match(await send(1), { targets: 5, sent: 1, failed: 4 });
  t.strictSame(await rows(endpoints), [
    ['active', 1],
    ['active', 1],
    ['active', 0],
    ['active', 0],
    ['active', 0],
  ]);
  t.match(await send(2), { targets: 5, sent: 1, failed: 4 });
  t.strictSame((await rows(endpoints)).slice(0, 2), [
    ['active', 2],
    ['active', 2],
  ]);

  const third = await send(3);
  t.match(third, { targets: 5, sent: 2, failed: 3, expired: 0 }, 'the third refusal still counts as failed');
  t.strictSame(third.failureReasons, { '400': 1, '413': 1, '403': 1 });
  t.strictSame(
    await rows(endpoints),
    [
      ['expired', 3],
      ['active', 0],
      ['active', 0],
      ['active', 0],
      ['active', 0],
    ],
    'retired at three; the flaky one sent and reset; 413 and 403 are the sender’s',
  );
  t.strictSame(await subscriberCounted(database.sql, owner.user.user.id), { counter: 4, real: 4 }, 'its slot freed');
  t.strictSame(
    await appSubscriberCounted(database.sql, owner.app.id),
    { counter: 4, real: 4 },
    'the app counts one less',
  );

  const before = push.received.filter((message) => message.subscriptionId === refused.id).length;
  t.match(await send(4), { targets: 4, sent: 2, failed: 2 }, 'no longer targeted');
  t.equal(push.received.filter((message) => message.subscriptionId === refused.id).length, before);
});

t.test('a refusal, then a success, then refusals: the streak starts again', async (t) => {
  const owner = await harness.owner();
  const [subscription] = await harness.subscribe(owner, 1);
  if (!subscription) throw new Error('no subscription');
  push.script(subscription.id, { status: 422 }, { status: 422 }, { status: 201 }, { status: 422 }, { status: 422 });
  for (let n = 1; n <= 5; n++) {
    const { id } = await harness.notify(owner, { title: `Send ${n}`, body: 'one' });
    await harness.finished(owner, id);
  }
  t.strictSame(await rows([subscription.endpoint]), [['active', 2]], 'two in a row since the success');
});
