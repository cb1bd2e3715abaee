import t from 'tap';
import { createWebhookFairness } from '../../src/webhooks/fairness.js';

// The rules alone, on a clock the test moves: per-app slots and the breaker per endpoint.
function setup() {
  let clock = 1_000_000;
  const fairness = createWebhookFairness({
    perAppConcurrency: 2,
    breakerFailures: 3,
    breakerPauseMs: 1_000,
    attemptTimeoutMs: 10_000,
    now: () => clock,
    random: () => 0,
  });
  return { fairness, advance: (ms: number) => (clock += ms), now: () => clock };
}

const URL_A = 'https://a.example/hook';
const URL_B = 'https://b.example/hook';

t.test('an app holds at most its share of slots; other apps are not affected', async (t) => {
  const { fairness, now } = setup();
  const first = await fairness.acquire('a', URL_A);
  const second = await fairness.acquire('a', URL_A);
  t.ok(first.ok && second.ok);
  const third = await fairness.acquire('a', URL_A);
  t.match(third, { ok: false, reason: 'app_busy' });
  if (!third.ok) t.ok(third.retryAt > now(), 'deferred to later');
  t.ok((await fairness.acquire('b', URL_B)).ok, 'another app starts at once');
  if (first.ok) first.release({ ok: true, durationMs: 20 });
  t.ok((await fairness.acquire('a', URL_A)).ok, 'a freed slot is taken again');
});

t.test('failures in a row pause the endpoint; a failed probe doubles the pause; a success resets', async (t) => {
  const { fairness, advance, now } = setup();
  const fail = async () => {
    const slot = await fairness.acquire('a', URL_A);
    if (!slot.ok) throw new Error(`no slot: ${slot.reason}`);
    slot.release({ ok: false, durationMs: 10_000 });
  };
  await fail();
  await fail();
  t.same(fairness.endpoint('a', URL_A), { failures: 2, pausedUntil: null }, 'not paused before the threshold');
  await fail();
  t.same(fairness.endpoint('a', URL_A), { failures: 3, pausedUntil: now() + 1_000 });
  t.match(await fairness.acquire('a', URL_A), { ok: false, reason: 'endpoint_paused', retryAt: now() + 1_000 });
  t.ok((await fairness.acquire('a', 'https://a.example/new')).ok, 'a changed URL is another endpoint');

  advance(1_000);
  const probe = await fairness.acquire('a', URL_A);
  t.ok(probe.ok, 'one probe after the pause');
  t.match(await fairness.acquire('a', URL_A), { ok: false, reason: 'endpoint_paused' }, 'nothing else while it runs');
  if (probe.ok) probe.release({ ok: false, durationMs: 10_000 });
  t.equal(fairness.endpoint('a', URL_A)?.pausedUntil, now() + 2_000, 'the pause doubled');

  advance(2_000);
  const recovered = await fairness.acquire('a', URL_A);
  if (recovered.ok) recovered.release({ ok: true, durationMs: 30 });
  t.equal(fairness.endpoint('a', URL_A), null, 'a success clears the record');
  t.ok((await fairness.acquire('a', URL_A)).ok);
});

t.test('an error before the attempt frees the slot and records nothing', async (t) => {
  const { fairness } = setup();
  const slot = await fairness.acquire('a', URL_A);
  if (slot.ok) slot.release();
  t.equal(fairness.inFlight('a'), 0);
  t.equal(fairness.endpoint('a', URL_A), null);
});

t.test('a busy app waits about as long as its attempts in flight have been running', async (t) => {
  const { fairness, advance, now } = setup();
  t.ok((await fairness.acquire('a', URL_A)).ok && (await fairness.acquire('a', URL_A)).ok);
  const early = await fairness.acquire('a', URL_A);
  t.match(early, { ok: false, reason: 'app_busy' });
  if (!early.ok) t.equal(early.retryAt, now() + 1_000, 'at first, a tenth of the attempt timeout');
  advance(6_000);
  const late = await fairness.acquire('a', URL_A);
  if (!late.ok) t.equal(late.retryAt, now() + 6_000, 'attempts hanging for 6 s: wait 6 s');
  advance(20_000);
  const capped = await fairness.acquire('a', URL_A);
  if (!capped.ok) t.equal(capped.retryAt, now() + 10_000, 'never longer than one attempt can take');
});

t.test('a process takes the pause every worker shares, and forgets an endpoint reset elsewhere', async (t) => {
  const { fairness, advance, now } = setup();
  // A restarted worker: nothing in memory, the webhook's row says paused for 5 s after 4 failures.
  fairness.adopt('a', URL_A, { failures: 4, pausedUntil: now() + 5_000 });
  t.match(await fairness.acquire('a', URL_A), { ok: false, reason: 'endpoint_paused' }, 'no attempt while paused');
  t.match(fairness.endpoint('a', URL_A), { failures: 4, pausedUntil: now() + 5_000 });
  advance(5_000);
  const probe = await fairness.acquire('a', URL_A);
  t.ok(probe.ok, 'one probe once the pause is over');
  t.match(await fairness.acquire('a', URL_A), { ok: false, reason: 'endpoint_paused' }, 'only one while it runs');
  if (probe.ok) probe.release({ ok: false, durationMs: 10 });
  // 4 failures with a threshold of 3: one pause taken already, so the failed probe doubles it twice.
  t.equal(fairness.endpoint('a', URL_A)?.pausedUntil, now() + 4_000);

  // Resumed by its owner (or recovered in another worker): the row says no failures.
  fairness.adopt('a', URL_A, { failures: 0, pausedUntil: null });
  t.equal(fairness.endpoint('a', URL_A), null);
  t.ok((await fairness.acquire('a', URL_A)).ok, 'deliveries go out at once');
});
