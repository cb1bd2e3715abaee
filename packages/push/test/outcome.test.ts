import t from 'tap';
import { outcomeForStatus, parseRetryAfter } from '../src/outcome.js';

t.test('maps push-service statuses onto outcomes (CONTRACT "Delivery")', async (t) => {
  t.same(outcomeForStatus(201, undefined, ''), { kind: 'sent', status: 201 });
  t.same(outcomeForStatus(202, undefined, ''), { kind: 'sent', status: 202 });
  t.same(outcomeForStatus(200, undefined, ''), { kind: 'sent', status: 200 });
  t.same(outcomeForStatus(404, undefined, ''), { kind: 'expired', status: 404 });
  t.same(outcomeForStatus(410, undefined, ''), { kind: 'expired', status: 410 });
  for (const status of [400, 401, 403, 413, 301]) {
    t.match(outcomeForStatus(status, '5', 'why'), {
      kind: 'failed',
      status,
      reason: `push service answered ${status}: why`,
    });
  }
  t.match(outcomeForStatus(429, '7', ''), { kind: 'retry', status: 429, retryAfterMs: 7000 });
  t.match(outcomeForStatus(500, undefined, ''), { kind: 'retry', status: 500 });
  t.notOk('retryAfterMs' in outcomeForStatus(503, undefined, ''), 'no Retry-After, no retryAfterMs');
  t.match(outcomeForStatus(503, '0', ''), { kind: 'retry', status: 503, retryAfterMs: 0 });
});

t.test('parses Retry-After as seconds or an HTTP date', async (t) => {
  const now = Date.UTC(2026, 10, 21, 12, 0, 0);
  t.equal(parseRetryAfter('120', now), 120_000);
  t.equal(parseRetryAfter(' 3 ', now), 3000);
  t.equal(parseRetryAfter(new Date(now + 90_000).toUTCString(), now), 90_000);
  t.equal(parseRetryAfter(new Date(now - 90_000).toUTCString(), now), 0, 'a date in the past is now');
  t.equal(parseRetryAfter('soon', now), undefined);
  t.equal(parseRetryAfter('-5', now), undefined);
  t.equal(parseRetryAfter(undefined, now), undefined);
});
