// A small HTTP load generator in a process of its own, so it does not share the event loop of the
// server it measures. `argv[2]` is a JSON HttpLoad; `concurrency` lanes send back to back over
// keep-alive connections for a warm-up second, then for `seconds`. With `subscriptions`, each request
// is a POST /subscribe body of its own (a new endpoint, a key pair from the bench's pool). Prints `{"window":"start"}` and
// `{"window":"end"}` as the measured window opens and closes, then one JSON line HttpLoadResult.
import { Agent, request } from 'node:http';

export interface HttpLoad {
  url: string;
  /** POST (the default) with a body, or GET of `url` with its query and no body. */
  method?: 'GET' | 'POST';
  headers: Record<string, string>;
  body: string;
  concurrency: number;
  seconds: number;
  /** Instead of `body`: a new subscription per request, endpoint `<endpointPrefix><n>` (n from 1). */
  subscriptions?: { endpointPrefix: string; keys: { p256dh: string; auth: string }[] };
  /**
   * Instead of `body`: `count` bodies in turn, one a request, each `template` with its `{n}` replaced
   * by 1 … `count` (POST /events for many subscriptions; argv cannot carry the bodies themselves).
   */
  numbered?: { template: string; count: number };
  /** Also report each measured request's latency, from just before the request to the end of its answer. */
  latencies?: boolean;
  /**
   * Instead of `seconds`: exactly `total` requests (no warm-up), and the seconds each consecutive
   * `blockSize` of answers took (how the rate moves as a table grows). Prints `{"block":n}` as each
   * block ends.
   */
  count?: { total: number; blockSize: number };
}

export interface HttpLoadResult {
  /** Requests answered within the measured window. */
  requests: number;
  seconds: number;
  statuses: Record<string, number>;
  errors: number;
  firstError: string | null;
  /** With `latencies`: one per measured request, in milliseconds, in the order they ended. */
  latenciesMs?: number[];
  /** With `count`: seconds per block of `blockSize` answers, in order. */
  blockSeconds?: number[];
}

const WARM_UP_MS = 1_000;

const raw = process.argv[2];
if (!raw) throw new Error('usage: http-load.ts <json>');
const load = JSON.parse(raw) as HttpLoad;
const url = new URL(load.url);
const agent = new Agent({ keepAlive: true, maxSockets: load.concurrency });
const fixedBody = Buffer.from(load.body);
let sequence = 0;
const bodies = Array.from({ length: load.numbered?.count ?? 0 }, (_, index) =>
  Buffer.from(load.numbered?.template.replace('{n}', String(index + 1)) ?? ''),
);
function nextBody(): Buffer {
  const { subscriptions } = load;
  const n = ++sequence;
  if (bodies.length > 0) return bodies[n % bodies.length] ?? fixedBody;
  if (!subscriptions) return fixedBody;
  const key = subscriptions.keys[n % subscriptions.keys.length];
  return Buffer.from(JSON.stringify({ endpoint: `${subscriptions.endpointPrefix}${n}`, ...key }));
}

const post = () =>
  new Promise<number>((resolve, reject) => {
    const get = load.method === 'GET';
    const body = get ? Buffer.alloc(0) : nextBody();
    const headers = get
      ? load.headers
      : { ...load.headers, 'content-type': 'application/json', 'content-length': String(body.length) };
    const req = request(
      {
        agent,
        method: get ? 'GET' : 'POST',
        hostname: url.hostname,
        port: url.port,
        path: get ? `${url.pathname}${url.search}` : url.pathname,
        headers,
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    if (get) req.end();
    else req.end(body);
  });

if (load.count) {
  const { total, blockSize } = load.count;
  const counted: HttpLoadResult = {
    requests: 0,
    seconds: 0,
    statuses: {},
    errors: 0,
    firstError: null,
    blockSeconds: [],
  };
  let issued = 0;
  const startedAt = performance.now();
  let blockStart = startedAt;
  process.stdout.write(`${JSON.stringify({ window: 'start' })}\n`);
  const countingLane = async () => {
    while (issued < total) {
      issued++;
      try {
        const status = await post();
        counted.statuses[status] = (counted.statuses[status] ?? 0) + 1;
      } catch (error) {
        counted.errors++;
        counted.firstError ??= error instanceof Error ? error.message : String(error);
      }
      counted.requests++;
      if (counted.requests % blockSize === 0) {
        const now = performance.now();
        counted.blockSeconds?.push((now - blockStart) / 1000);
        blockStart = now;
        // Progress for the bench's watchdog, which kills a load only when a block takes too long.
        process.stdout.write(`${JSON.stringify({ block: counted.blockSeconds?.length })}\n`);
      }
    }
  };
  await Promise.all(Array.from({ length: load.concurrency }, countingLane));
  counted.seconds = (performance.now() - startedAt) / 1000;
  process.stdout.write(`${JSON.stringify({ window: 'end' })}\n`);
  agent.destroy();
  process.stdout.write(`${JSON.stringify(counted)}\n`);
  process.exit(0);
}

const started = performance.now();
const measureFrom = started + WARM_UP_MS;
const measureUntil = measureFrom + load.seconds * 1000;
const result: HttpLoadResult = { requests: 0, seconds: load.seconds, statuses: {}, errors: 0, firstError: null };
const latencies: number[] | null = load.latencies ? [] : null;

const mark = (window: 'start' | 'end') => process.stdout.write(`${JSON.stringify({ window })}\n`);
setTimeout(() => mark('start'), WARM_UP_MS);
setTimeout(() => mark('end'), WARM_UP_MS + load.seconds * 1000);

const lane = async () => {
  while (performance.now() < measureUntil) {
    try {
      const sent = performance.now();
      const status = await post();
      const now = performance.now();
      if (now < measureFrom || now > measureUntil) continue;
      latencies?.push(now - sent);
      result.requests++;
      result.statuses[status] = (result.statuses[status] ?? 0) + 1;
    } catch (error) {
      result.errors++;
      result.firstError ??= error instanceof Error ? error.message : String(error);
    }
  }
};
await Promise.all(Array.from({ length: load.concurrency }, lane));
agent.destroy();
if (latencies) result.latenciesMs = latencies;
process.stdout.write(`${JSON.stringify(result)}\n`);
