import { Writable } from 'node:stream';
import t, { type Test } from 'tap';
import { buildTestApp } from './helper.js';

/** The API with its own logger at `info`, written to a captured stream. */
async function loggingApp(t: Test, env: Record<string, string>) {
  const lines: string[] = [];
  const logStream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  const { app } = await buildTestApp(t, { LOG_LEVEL: 'info', ...env }, { logStream });
  return { app, lines };
}

const parsed = (lines: string[]) => lines.map((line) => JSON.parse(line) as Record<string, unknown>);
/** Every line written about the request that logged `url`. */
function linesOf(lines: string[], url: string) {
  const all = parsed(lines);
  const ids = new Set(all.filter((line) => line.url === url).map((line) => line.reqId));
  return all.filter((line) => ids.has(line.reqId));
}

t.test('one line per request: method, path without its query, status, time, request id', async (t) => {
  const { app, lines } = await loggingApp(t, {});
  const response = await app.inject({ method: 'GET', url: '/healthz?probe=1' });
  t.equal(response.statusCode, 200);
  const missing = await app.inject({ method: 'GET', url: '/api/v1/nowhere?token=abc' });
  t.equal(missing.statusCode, 404);

  const [first, ...more] = linesOf(lines, '/healthz');
  t.strictSame(more, [], 'one line');
  t.match(first, { level: 30, msg: 'request', method: 'GET', url: '/healthz', status: 200, ms: Number, reqId: String });
  const [notFound, ...others] = linesOf(lines, '/api/v1/nowhere');
  t.strictSame(others, [], 'one line for an error answer too');
  t.match(notFound, { msg: 'request', method: 'GET', url: '/api/v1/nowhere', status: 404, reqId: String });
  t.notOk(lines.join('').includes('abc'), 'no query string');
});

t.test('LOG_REQUESTS=off: no request line', async (t) => {
  const { app, lines } = await loggingApp(t, { LOG_REQUESTS: 'off' });
  const response = await app.inject({ method: 'GET', url: '/healthz' });
  t.equal(response.statusCode, 200);
  t.strictSame(
    parsed(lines).filter((line) => line.msg === 'request' || line.reqId !== undefined),
    [],
  );
});
