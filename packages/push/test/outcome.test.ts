import t from 'tap';
import { failureKey, outcomeForStatus, parseRetryAfter } from '../src/outcome.js';

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

t.test('failureKey: the status and the push service’s reason, a small set of keys', async (t) => {
  const key = (status: number, detail: string) => failureKey(outcomeForStatus(status, undefined, detail));
  t.equal(key(403, '{"reason":"BadJwtToken"}'), '403 BadJwtToken', 'Apple');
  t.equal(key(400, '{"reason":"VapidPkHashMismatch"}'), '400 VapidPkHashMismatch', 'Apple');
  t.equal(key(410, ''), '410');
  t.equal(key(404, '{"code": 404, "errno": 102, "error": "Not Found"}'), '404', 'expired: the status');
  t.equal(key(413, '{"code": 413, "errno": 104, "error": "Payload Too Large"}'), '413 errno 104', 'Mozilla');
  t.equal(key(400, 'UnauthorizedRegistration'), '400', 'free text is not a key');
  t.equal(key(403, '{"reason":"a sentence with spaces"}'), '403');
  t.equal(key(429, '{"reason":"TooManyRequests"}'), '429 TooManyRequests', 'a retry that ran out');
  t.equal(failureKey({ kind: 'retry', reason: 'network error: ECONNREFUSED' }), 'network error: ECONNREFUSED');
  t.equal(failureKey({ kind: 'failed', reason: 'VAPID key unavailable' }), 'VAPID key unavailable');
});

t.test('WNS: 406 is its throttle limit, sent again later (honouring Retry-After); elsewhere a refusal', async (t) => {
  t.same(outcomeForStatus(406, '30', '', 'https://wns2-par02p.notify.windows.com'), {
    kind: 'retry',
    status: 406,
    retryAfterMs: 30_000,
    reason: 'push service answered 406',
  });
  t.equal(outcomeForStatus(406, undefined, '', 'https://fcm.googleapis.com').kind, 'failed');
  t.equal(outcomeForStatus(406, undefined, '').kind, 'failed');
  t.equal(outcomeForStatus(410, undefined, '', 'https://db5p.notify.windows.com').kind, 'expired', 'channel expired');
});
