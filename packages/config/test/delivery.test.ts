import t from 'tap';
import { ConfigValidationError, defaultProgressBatch, loadConfig, unrecordedBound } from '../src/index.js';

t.test('DELIVERY_PROGRESS_BATCH: half of PUSH_CONCURRENCY unless set', async (t) => {
  t.equal(loadConfig({}).delivery.progressBatch, 25, 'PUSH_CONCURRENCY 50 by default');
  t.equal(loadConfig({ PUSH_CONCURRENCY: '9' }).delivery.progressBatch, 5, 'rounded up');
  t.equal(loadConfig({ PUSH_CONCURRENCY: '1' }).delivery.progressBatch, 1);
  t.equal(loadConfig({ DELIVERY_PROGRESS_BATCH: '100' }).delivery.progressBatch, 100);
  t.equal(defaultProgressBatch(50), 25);
  for (const bad of ['0', '-5', '2.5', '1e3', 'many']) {
    t.throws(() => loadConfig({ DELIVERY_PROGRESS_BATCH: bad }), ConfigValidationError, `"${bad}" is refused`);
  }
});

t.test('the crash bound per chunk follows both settings', async (t) => {
  // P in flight, plus the batch being written and the one filling meanwhile (each < B + P).
  t.equal(unrecordedBound({ pushConcurrency: 50, progressBatch: 25 }), 50 + 2 * (25 + 49));
  t.equal(unrecordedBound({ pushConcurrency: 10, progressBatch: 5 }), 38);
  t.equal(unrecordedBound(loadConfig({ DELIVERY_PROGRESS_BATCH: '100' }).delivery), 50 + 2 * (100 + 49));
});

t.test('every integer setting refuses a fraction rather than rounding it', async (t) => {
  t.throws(() => loadConfig({ PUSH_CONCURRENCY: '2.5' }), { message: /PUSH_CONCURRENCY must be a whole number/ });
  t.throws(() => loadConfig({ PORT: '80.9' }), ConfigValidationError);
  t.equal(loadConfig({ PUSH_CONCURRENCY: ' 12 ' }).delivery.pushConcurrency, 12, 'spaces around digits are fine');
});
