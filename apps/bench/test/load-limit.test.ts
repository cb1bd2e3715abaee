import { mock } from 'node:test';
import t from 'tap';
import { BLOCK_STALL_MS, loadStallLimitMs, startWatchdog } from '../src/load-limit.js';

t.test('a timed load is allowed its warm-up second, its window and 30 s more, once', async (t) => {
  t.equal(loadStallLimitMs({ seconds: 4 }), 35_000);
  t.equal(loadStallLimitMs({ seconds: 1 }), 32_000);
});

t.test('a counted load is allowed a time a block, whatever its total', async (t) => {
  const block = { total: 20_000, blockSize: 5_000 };
  t.equal(loadStallLimitMs({ seconds: 0, count: block }), BLOCK_STALL_MS);
  t.equal(loadStallLimitMs({ seconds: 0, count: { ...block, total: 1_000_000 } }), BLOCK_STALL_MS);
  // The per-app cap's path, each subscribe stored alone: ~450 /s on 2 cores (2026-11-29), 11 s a
  // block, 37 minutes to 1,000,000 — far past the 631 s a counted load once had in all.
  const capOnBlockMs = (5_000 / 450) * 1000;
  t.ok(BLOCK_STALL_MS >= 5 * capOnBlockMs, 'room for a machine 5× slower than the cap-on run');
});

// Node's mock timers: the clock moves only when the test says, so no test waits on the machine.
const clock = () => {
  mock.timers.enable({ apis: ['setTimeout'] });
  return { tick: (ms: number) => mock.timers.tick(ms), [Symbol.dispose]: () => mock.timers.reset() };
};

t.test('the watchdog expires only after its limit without progress', async (t) => {
  const time = clock();
  t.teardown(() => time[Symbol.dispose]());
  let expired = 0;
  const dog = startWatchdog(60, () => expired++);
  // Progress every 20 ms for 200 ms: well past 60 ms in all, never 60 ms without progress.
  for (let i = 0; i < 10; i++) {
    time.tick(20);
    dog.progress();
  }
  t.equal(expired, 0, 'kept alive by progress');
  t.notOk(dog.expired);
  time.tick(59);
  t.equal(expired, 0, 'not before its limit');
  time.tick(1);
  t.equal(expired, 1, 'expired once progress stopped for its limit');
  t.ok(dog.expired);
  dog.progress();
  time.tick(100);
  t.equal(expired, 1, 'progress after expiry does not start it again');
});

t.test('a stopped watchdog never expires', async (t) => {
  const time = clock();
  t.teardown(() => time[Symbol.dispose]());
  let expired = 0;
  const dog = startWatchdog(30, () => expired++);
  dog.stop();
  time.tick(80);
  t.equal(expired, 0);
  t.notOk(dog.expired);
});
