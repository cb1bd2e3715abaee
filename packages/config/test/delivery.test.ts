import { availableParallelism } from 'node:os';
import t from 'tap';
import {
  ConfigValidationError,
  defaultCryptoThreads,
  defaultProgressBatch,
  loadConfig,
  unrecordedBound,
} from '../src/index.js';

t.test('DELIVERY_PROGRESS_BATCH: half of what a worker process has in flight unless set', async (t) => {
  t.equal(loadConfig({}).delivery.progressBatch, 100, '4 chunks × PUSH_CONCURRENCY 50, halved, by default');
  t.equal(loadConfig({ PUSH_CONCURRENCY: '9' }).delivery.progressBatch, 20, '4 × 5: rounded up per chunk');
  t.equal(loadConfig({ PUSH_CONCURRENCY: '1', WORKER_DELIVERY_CONCURRENCY: '1' }).delivery.progressBatch, 1);
  t.equal(loadConfig({ WORKER_DELIVERY_CONCURRENCY: '2' }).delivery.progressBatch, 50);
  t.equal(loadConfig({ DELIVERY_PROGRESS_BATCH: '7' }).delivery.progressBatch, 7);
  t.equal(defaultProgressBatch(4, 50), 100);
  for (const bad of ['0', '-5', '2.5', '1e3', 'many']) {
    t.throws(() => loadConfig({ DELIVERY_PROGRESS_BATCH: bad }), ConfigValidationError, `"${bad}" is refused`);
  }
});

t.test('the crash bound of a worker process follows the three settings', async (t) => {
  // L = chunks × P lanes in flight, plus the batch being written and the one filling meanwhile (each < B + L).
  t.equal(unrecordedBound({ chunkConcurrency: 4, pushConcurrency: 50, progressBatch: 100 }), 200 + 2 * (100 + 199));
  t.equal(unrecordedBound({ chunkConcurrency: 1, pushConcurrency: 10, progressBatch: 5 }), 38);
  t.equal(
    unrecordedBound(loadConfig({ DELIVERY_PROGRESS_BATCH: '10', WORKER_DELIVERY_CONCURRENCY: '2' }).delivery),
    100 + 2 * (10 + 99),
  );
});

t.test('every integer setting refuses a fraction rather than rounding it', async (t) => {
  t.throws(() => loadConfig({ PUSH_CONCURRENCY: '2.5' }), { message: /PUSH_CONCURRENCY must be a whole number/ });
  t.throws(() => loadConfig({ PORT: '80.9' }), ConfigValidationError);
  t.equal(loadConfig({ PUSH_CONCURRENCY: ' 12 ' }).delivery.pushConcurrency, 12, 'spaces around digits are fine');
});

t.test(
  'PUSH_CRYPTO_THREADS: one fewer than the cores, at most 4, unless set; 0 keeps encryption on the event loop',
  async (t) => {
    t.equal(defaultCryptoThreads(1), 0, 'one core: no thread to spare');
    t.equal(defaultCryptoThreads(2), 1);
    t.equal(defaultCryptoThreads(5), 4);
    t.equal(defaultCryptoThreads(64), 4);
    t.equal(loadConfig({ PUSH_CRYPTO_THREADS: '0' }).delivery.cryptoThreads, 0);
    t.equal(loadConfig({ PUSH_CRYPTO_THREADS: '3' }).delivery.cryptoThreads, 3);
    t.equal(loadConfig({}).delivery.cryptoThreads, defaultCryptoThreads(availableParallelism()));
    for (const bad of ['-1', '1.5', '65', 'all']) {
      t.throws(() => loadConfig({ PUSH_CRYPTO_THREADS: bad }), ConfigValidationError, `"${bad}" is refused`);
    }
  },
);
