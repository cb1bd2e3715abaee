import t from 'tap';
import {
  failureKey,
  outcomeForAnswer,
  outcomeForStatus,
  parseRetryAfter,
  refusedBySubscription,
} from '../src/outcome.js';

t.test('maps push-service statuses onto outcomes (docs/sending.md)', async (t) => {
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

t.test('WNS: X-WNS-CONTINUE-AFTER stands in for Retry-After, X-WNS-Status for the empty body', async (t) => {
  const wns = 'https://wns2-par02p.notify.windows.com';
  t.match(outcomeForAnswer(406, { wnsStatus: 'channelthrottled', wnsContinueAfter: '5' }, '', wns), {
    kind: 'retry',
    retryAfterMs: 5_000,
  });
  t.match(outcomeForAnswer(406, { retryAfter: '7', wnsContinueAfter: '5' }, '', wns), { retryAfterMs: 7_000 });
  const conflict = outcomeForAnswer(
    400,
    { wnsStatus: 'dropped', wnsErrorDescription: 'Ttl value conflicts with X-WNS-Cache-Policy.' },
    '',
    wns,
  );
  t.equal(failureKey(conflict), '400 dropped');
  t.match(conflict, { kind: 'failed', reason: /Ttl value conflicts/ });
  t.same(outcomeForAnswer(200, { wnsStatus: 'received' }, '', wns), { kind: 'sent', status: 200 });
  t.notOk(
    'retryAfterMs' in outcomeForAnswer(429, { wnsContinueAfter: '5' }, '', 'https://fcm.googleapis.com'),
    'X-WNS-CONTINUE-AFTER means nothing elsewhere',
  );
});

t.test('FCM: the reason is the title of its HTML answer', async (t) => {
  const html =
    '<html><head><title>UnauthorizedRegistration</title></head><body><h1>UnauthorizedRegistration</h1></body></html>';
  t.equal(failureKey(outcomeForStatus(400, undefined, html)), '400 UnauthorizedRegistration');
});

t.test('refusedBySubscription: permanent 4xx the subscription causes, not the sender’s', async (t) => {
  const refused = (status: number, detail = '', origin?: string) =>
    refusedBySubscription(outcomeForStatus(status, undefined, detail, origin), origin);
  t.ok(refused(400), 'a bare 400');
  t.ok(refused(400, '{"reason":"BadDeviceToken"}'), 'Apple: the device token');
  t.ok(refused(400, '{"code": 400, "errno": 108, "error": "Bad Request"}'), 'autopush: a corrupted endpoint URL');
  t.ok(refused(422));
  for (const status of [401, 403, 404, 410, 413, 429, 500, 503]) t.notOk(refused(status), `${status}`);
  t.notOk(refused(400, '{"reason":"VapidPkHashMismatch"}'), 'the VAPID key');
  t.notOk(refused(403, '{"reason":"BadJwtToken"}'), 'the JWT');
  t.notOk(refused(400, '<html><head><title>UnauthorizedRegistration</title></head></html>'), 'FCM: any VAPID problem');
  t.notOk(refused(400, '{"code": 400, "errno": 113, "error": "Bad Request"}'), 'autopush: the Topic header');
  t.notOk(refused(400, '', 'https://db5p.notify.windows.com'), 'WNS: 400 is about the request’s headers');
  t.notOk(refused(406, '', 'https://db5p.notify.windows.com'), 'WNS throttling is a retry');
  t.notOk(refusedBySubscription({ kind: 'failed', reason: 'network error: ECONNREFUSED' }), 'no answer');
  t.notOk(refusedBySubscription({ kind: 'retry', status: 429, reason: 'x' }));
});
