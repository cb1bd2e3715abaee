// POST /subscribe load in a process of its own (like http-load.ts): `concurrency` lanes over
// keep-alive connections, each request a new endpoint with a real P-256 key pair from the bench's
// pool, for a warm-up second and then `seconds`. Prints `{"window":"start"}` and `{"window":"end"}`
// as the measured window opens and closes, then one JSON line HttpLoadResult.
import { Agent, request } from 'node:http';
import type { HttpLoadResult } from './http-load.js';

export interface SubscribeLoad {
  url: string;
  secret: string;
  /** Endpoints are `<endpointPrefix><n>`, n counting from 1: distinct per load run. */
  endpointPrefix: string;
  keys: { p256dh: string; auth: string }[];
  concurrency: number;
  seconds: number;
}

const WARM_UP_MS = 1_000;

const raw = process.argv[2];
if (!raw) throw new Error('usage: subscribe-load.ts <json>');
const load = JSON.parse(raw) as SubscribeLoad;
const url = new URL(load.url);
const agent = new Agent({ keepAlive: true, maxSockets: load.concurrency });
let sequence = 0;

const post = () =>
  new Promise<number>((resolve, reject) => {
    const n = ++sequence;
    const key = load.keys[n % load.keys.length];
    const body = Buffer.from(JSON.stringify({ endpoint: `${load.endpointPrefix}${n}`, ...key }));
    const headers = {
      authorization: `Bearer ${load.secret}`,
      'content-type': 'application/json',
      'content-length': String(body.length),
    };
    const req = request(
      { agent, method: 'POST', hostname: url.hostname, port: url.port, path: url.pathname, headers },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(body);
  });

const started = performance.now();
const measureFrom = started + WARM_UP_MS;
const measureUntil = measureFrom + load.seconds * 1000;
const result: HttpLoadResult = { requests: 0, seconds: load.seconds, statuses: {}, errors: 0, firstError: null };

const mark = (window: 'start' | 'end') => process.stdout.write(`${JSON.stringify({ window })}\n`);
setTimeout(() => mark('start'), WARM_UP_MS);
setTimeout(() => mark('end'), WARM_UP_MS + load.seconds * 1000);

const lane = async () => {
  while (performance.now() < measureUntil) {
    try {
      const status = await post();
      const now = performance.now();
      if (now < measureFrom || now > measureUntil) continue;
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
process.stdout.write(`${JSON.stringify(result)}\n`);
