import t from 'tap';
import { retryAfterSeconds } from '../src/errors.js';
import { fetchWithRetries } from '../src/retry.js';

// The retry policy alone, with a scripted fetch and recorded waits (no timers).
const json = (status: number, body: object, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });

function scripted(...answers: (Response | Error)[]) {
  const seen: Request[] = [];
  const fetch = async (request: Request) => {
    seen.push(request);
    const answer = answers.shift();
    if (!answer) throw new Error('no more answers');
    if (answer instanceof Error) throw answer;
    return answer;
  };
  return { fetch, seen };
}

const post = (headers: Record<string, string> = {}) =>
  new Request('http://service.test/api/v1/notify', { method: 'POST', body: '{"title":"t"}', headers });

t.test('5xx is retried with backoff until an answer that is not retryable', async (t) => {
  const { fetch, seen } = scripted(json(503, {}), json(500, {}), json(202, { ok: true }));
  const waits: number[] = [];
  const send = fetchWithRetries(fetch, { baseDelayMs: 100, wait: async (ms) => void waits.push(ms) });
  const response = await send(post({ 'idempotency-key': 'k' }));
  t.equal(response.status, 202);
  t.equal(seen.length, 3);
  t.equal(await seen[2]?.text(), '{"title":"t"}', 'the body is sent again on each attempt');
  t.ok(waits[0] !== undefined && waits[0] <= 100 && (waits[1] ?? 0) <= 200, `full jitter under the cap: ${waits}`);
});

t.test('gives up after maxRetries and returns the last answer', async (t) => {
  const { fetch, seen } = scripted(json(502, {}), json(502, {}), json(502, { code: 'PUSH_FAILED' }));
  const response = await fetchWithRetries(fetch, { maxRetries: 2, wait: async () => {} })(post());
  t.equal(response.status, 502);
  t.equal(seen.length, 3);
});

t.test('a Retry-After longer than maxDelayMs is not waited for', async (t) => {
  const { fetch, seen } = scripted(json(429, { code: 'RATE_LIMITED' }, { 'retry-after': '3600' }));
  const response = await fetchWithRetries(fetch, { maxDelayMs: 30_000, wait: async () => void t.fail('waited') })(
    post(),
  );
  t.equal(response.status, 429);
  t.equal(seen.length, 1);
});

t.test('plan limits and 4xx are answered at once', async (t) => {
  for (const answer of [
    json(429, { code: 'SUBSCRIBER_LIMIT_EXCEEDED', upgrade_url: 'https://x/pricing' }),
    json(400, { code: 'INVALID_INPUT' }),
  ]) {
    const { fetch, seen } = scripted(answer);
    t.equal((await fetchWithRetries(fetch, { wait: async () => void t.fail('waited') })(post())).status, answer.status);
    t.equal(seen.length, 1);
  }
});

t.test('a network error is retried only for a request that may be repeated', async (t) => {
  const withKey = scripted(new TypeError('fetch failed'), json(202, {}));
  t.equal(
    (await fetchWithRetries(withKey.fetch, { wait: async () => {} })(post({ 'idempotency-key': 'k' }))).status,
    202,
  );
  const get = scripted(new TypeError('fetch failed'), json(200, {}));
  t.equal((await fetchWithRetries(get.fetch, { wait: async () => {} })(new Request('http://s.test/x'))).status, 200);
  const bare = scripted(new TypeError('fetch failed'), json(202, {}));
  await t.rejects(fetchWithRetries(bare.fetch, { wait: async () => {} })(post()), /fetch failed/);
  t.equal(bare.seen.length, 1, 'a POST without a key may have arrived: not sent again');
});

t.test('Retry-After as seconds or as an HTTP date', async (t) => {
  t.equal(retryAfterSeconds('7'), 7);
  t.equal(retryAfterSeconds(new Date(Date.UTC(2030, 0, 1, 0, 0, 10)).toUTCString(), Date.UTC(2030, 0, 1)), 10);
  t.equal(retryAfterSeconds('soon'), null);
  t.equal(retryAfterSeconds(null), null);
});
