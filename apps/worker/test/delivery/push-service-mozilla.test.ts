import t from 'tap';
import { deliveryHarness, subscribeWithAnotherAppsKey } from '../helper.js';

// Mozilla autopush (Firefox), as the stand-in's `mozilla` mode answers from autopush's own
// documentation: "Error Codes" https://mozilla-services.github.io/autopush-rs/errors.html and
// "HTTP Endpoints for Notifications" https://mozilla-services.github.io/autopush-rs/http.html, and
// what the sender and the worker make of each answer (docs/sending.md, "Push services").
const harness = await deliveryHarness(t, {}, { service: 'mozilla' });
const { push, database } = harness;
await harness.startInProcessWorker();

const statusOf = async (endpoint: string) =>
  (await database.sql<{ status: string }[]>`select status from subscriptions where endpoint = ${endpoint}`)[0]?.status;

t.test('413 errno 104 (payload too large): failed with its reason, the subscription kept', async (t) => {
  const owner = await harness.owner();
  const [big, ...others] = await harness.subscribe(owner, 3);
  if (!big) throw new Error('no subscription');
  push.script(big.id, { status: 413 });
  const { id } = await harness.notify(owner, { title: 'Big', body: 'Too large for autopush' });
  const done = await harness.finished(owner, id);
  t.match(done, { status: 'completed', targets: 3, sent: 2, failed: 1, expired: 0 });
  t.strictSame(done.failureReasons, { '413 errno 104': 1 }, 'the status and autopush’s errno');
  const refused = push.received.find((message) => message.subscriptionId === big.id);
  t.equal(refused?.status, 413, 'the stand-in answered 413');
  t.equal(await statusOf(big.endpoint), 'active', 'a size refusal is the sender’s, not the subscription’s');
  t.equal(others.length, 2);
});

t.test('Topic: a newer message replaces the one an offline Firefox has not received yet', async (t) => {
  const owner = await harness.owner();
  const [subscription] = await harness.subscribe(owner, 1);
  if (!subscription) throw new Error('no subscription');
  push.setOnline(subscription.id, false);
  for (const [body, topic] of [
    ['Score 1-0', 'match_42'],
    ['Score 2-0', 'match_42'],
    ['Kick-off moved', undefined],
  ] as const) {
    const { id } = await harness.notify(owner, { title: 'Match', body, ...(topic ? { topic } : {}) });
    t.match(await harness.finished(owner, id), { status: 'completed', sent: 1 }, `${body}: accepted (201)`);
  }
  const sentTopics = push.received.filter((m) => m.subscriptionId === subscription.id).map((m) => m.topic);
  t.strictSame(sentTopics, ['match_42', 'match_42', null], 'the Topic header went with each');
  t.strictSame(push.deliveredTo(subscription.id), [], 'nothing reaches an offline browser');
  push.setOnline(subscription.id, true);
  const shown = push.deliveredTo(subscription.id).map((message) => message.payload);
  t.equal(shown.length, 2, 'the first score was replaced');
  t.match(shown[0], /Score 2-0/);
  t.match(shown[1], /Kick-off moved/);
});

t.test('signed with another key than the subscription’s: 404 errno 102, the subscription expires', async (t) => {
  const owner = await harness.owner();
  // web.dev "Common Issues and Reporting Bugs": autopush answers Not Found (errno 102) when the
  // application server keys differ between subscribe and send.
  const subscription = await subscribeWithAnotherAppsKey(t, harness, owner);
  const { id } = await harness.notify(owner, { title: 'Hello', body: 'Firefox' });
  t.match(await harness.finished(owner, id), { status: 'failed', targets: 1, sent: 0, expired: 1 });
  t.equal(await statusOf(subscription.endpoint), 'expired');
});

t.test('429 errno 201 with Retry-After: sent again, not before the time it named', async (t) => {
  const owner = await harness.owner();
  const [subscription] = await harness.subscribe(owner, 1);
  if (!subscription) throw new Error('no subscription');
  push.script(subscription.id, { status: 429, retryAfter: '1' });
  const { id } = await harness.notify(owner, { title: 'Later', body: 'Rate limited' });
  t.match(await harness.finished(owner, id), { status: 'completed', sent: 1, failed: 0 });
  const [first, second] = push.received.filter((message) => message.subscriptionId === subscription.id);
  t.equal(first?.status, 429);
  t.equal(second?.status, 201);
  t.ok(
    (second?.at ?? 0) - (first?.at ?? 0) >= 950,
    `waited ${(second?.at ?? 0) - (first?.at ?? 0)} ms for Retry-After: 1`,
  );
});

t.test('404 errno 102 and 410 errno 103: the subscriptions expire', async (t) => {
  const owner = await harness.owner();
  const [notFound, gone, fine] = await harness.subscribe(owner, 3);
  if (!notFound || !gone || !fine) throw new Error('no subscriptions');
  push.script(notFound.id, { status: 404 });
  push.script(gone.id, { status: 410 });
  const { id } = await harness.notify(owner, { title: 'Hello', body: 'Three' });
  t.match(await harness.finished(owner, id), { status: 'completed', sent: 1, expired: 2, failed: 0 });
  t.equal(await statusOf(notFound.endpoint), 'expired');
  t.equal(await statusOf(gone.endpoint), 'expired');
  t.equal(await statusOf(fine.endpoint), 'active');
  t.strictSame(
    push.protocolErrors.filter((error) => error.subscriptionId === fine.id),
    [],
  );
});
