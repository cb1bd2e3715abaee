import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { Session } from 'node:inspector/promises';
import { createInterface } from 'node:readline';
import Fastify from 'fastify';
import { jsonLine, spawnSource, stopChild } from './child.js';
import { type CpuMeter, type CpuShare, startCpuMeter } from './cpu-meter.js';
import type { HttpLoad, HttpLoadResult } from './http-load.js';
import { loadStallLimitMs, startWatchdog } from './load-limit.js';

export interface RequestRate {
  perSecond: number;
  /** Over the measured window: the load generator, this process (where the servers run), the rest. */
  cpu: CpuShare<'load'>;
}

/** One round of http-load.ts against `load.url`; throws unless every answer had `expectStatus`. */
export async function measureRequestRate(load: HttpLoad, expectStatus: number): Promise<RequestRate> {
  const { result, cpu } = await runLoad(load, expectStatus);
  return { perSecond: result.requests / result.seconds, cpu };
}

/**
 * Latency of requests sent one at a time over one keep-alive connection from a process of its own
 * (node:http, like most server-side clients; undici's `fetch` alone adds ~1.5 ms a request here),
 * sorted ascending.
 */
export async function measureSequentialLatency(
  load: Omit<HttpLoad, 'concurrency' | 'latencies'>,
  expectStatus: number,
): Promise<number[]> {
  const { result } = await runLoad({ ...load, concurrency: 1, latencies: true }, expectStatus);
  return (result.latenciesMs ?? []).sort((a, b) => a - b);
}

/**
 * Exactly `count.total` requests; the seconds each block of `count.blockSize` answers took. However
 * long they take in all: the load client is killed only if a block takes over `BLOCK_STALL_MS`.
 */
export async function measureBlocks(
  load: Omit<HttpLoad, 'seconds'> & { count: NonNullable<HttpLoad['count']> },
  expectStatus: number,
): Promise<{ blockSeconds: number[]; cpu: CpuShare<'load'> }> {
  const { result, cpu } = await runLoad({ ...load, seconds: 0 }, expectStatus);
  return { blockSeconds: result.blockSeconds ?? [], cpu };
}

/**
 * BENCH_API_PROF=<dir>: this process (where the API runs) is CPU-profiled while a load on an
 * `/api/v1` route runs, one `.cpuprofile` per load, named after the route: the profile of the
 * measured window only, without the set-up around it.
 */
export const apiProfileDir = process.env.BENCH_API_PROF || null;
let profiles = 0;

async function runLoad(
  load: HttpLoad,
  expectStatus: number,
): Promise<{ result: HttpLoadResult; cpu: CpuShare<'load'> }> {
  const route = apiProfileDir === null ? null : /\/api\/v1\/([\w/-]+)/.exec(load.url)?.[1];
  if (apiProfileDir === null || !route) return runLoadOnce(load, expectStatus);
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
  try {
    return await runLoadOnce(load, expectStatus);
  } finally {
    const { profile } = await session.post('Profiler.stop');
    session.disconnect();
    mkdirSync(apiProfileDir, { recursive: true });
    writeFileSync(`${apiProfileDir}/${route.replaceAll('/', '-')}-${++profiles}.cpuprofile`, JSON.stringify(profile));
  }
}

async function runLoadOnce(
  load: HttpLoad,
  expectStatus: number,
): Promise<{ result: HttpLoadResult; cpu: CpuShare<'load'> }> {
  const child = spawnSource('http-load.ts', [JSON.stringify(load)]);
  if (!child.stdout || child.pid === undefined) throw new Error(`load on ${load.url} did not start`);
  const pid = child.pid;
  const exited = new Promise<[number | null, string | null]>((resolve) =>
    child.once('close', (code, signal) => resolve([code, signal])),
  );
  const started = performance.now();
  const limitMs = loadStallLimitMs(load);
  const watchdog = startWatchdog(limitMs, () => void stopChild(child, 'SIGKILL'));

  let meter: CpuMeter<'load'> | null = null;
  let cpu: CpuShare<'load'> | null = null;
  let result: HttpLoadResult | undefined;
  let blocks = 0;
  for await (const line of createInterface({ input: child.stdout })) {
    const value = jsonLine(line);
    if (value?.window === 'start') meter = startCpuMeter({ load: pid });
    else if (value?.window === 'end') cpu = meter?.stop(0) ?? null;
    else if (typeof value?.block === 'number') {
      blocks = value.block;
      watchdog.progress();
    } else if (typeof value?.requests === 'number') result = value as unknown as HttpLoadResult;
  }
  const [code, signal] = await exited;
  watchdog.stop();
  if (watchdog.expired) {
    const after = ((performance.now() - started) / 1000).toFixed(0);
    const progress = load.count
      ? `no block of ${load.count.blockSize.toLocaleString('en-US')} answered within ${limitMs / 1000} s; ` +
        `${blocks} of ${Math.floor(load.count.total / load.count.blockSize)} blocks done`
      : `no result within ${limitMs / 1000} s`;
    throw new Error(`load on ${load.url}: killed (SIGKILL) after ${after} s: ${progress}`);
  }
  if (code !== 0 || !result || !cpu)
    throw new Error(`load on ${load.url}: exit code ${code}${signal ? `, signal ${signal}` : ''}, no result`);
  const unexpected = Object.keys(result.statuses).filter((status) => Number(status) !== expectStatus);
  if (result.errors > 0 || unexpected.length > 0 || result.requests === 0) {
    throw new Error(
      `load on ${load.url}: ${result.requests} answered, statuses ${JSON.stringify(result.statuses)}, ` +
        `${result.errors} errors${result.firstError ? ` (${result.firstError})` : ''}`,
    );
  }
  return { result, cpu };
}

export interface PlainServer {
  /** POST anything here: 202 `{}` when the request carries a bearer header, 401 otherwise. */
  url: string;
  close(): Promise<void>;
}

const BEARER = /^Bearer ([^\s]+)$/i;

/**
 * The baseline of the browser-facing routes: a plain `node:http` server in the bench process (where
 * the API under test runs too) that reads the whole body, parses the same bearer header, and answers
 * 202 with a JSON body. What a route costs beyond it is the route's own work.
 */
export async function startPlainServer(): Promise<PlainServer> {
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const authorized = BEARER.test(request.headers.authorization ?? '');
      const body = authorized ? '{}' : '{"code":"UNAUTHORIZED"}';
      response.writeHead(authorized ? 202 : 401, {
        'content-type': 'application/json; charset=utf-8',
        'content-length': Buffer.byteLength(body),
      });
      response.end(body);
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('the plain server has no port');
  return {
    url: `http://127.0.0.1:${address.port}/plain`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * The baseline the browser routes' targets are stated against: a plain Fastify route in the bench
 * process that parses the same bearer header (and, as every Fastify route, the JSON body) and
 * answers 202 `{}`, logging at `warn` as the API under test does. Its cost beyond the plain
 * node:http server above is the framework's.
 */
export async function startPlainFastify(): Promise<PlainServer> {
  const app = Fastify({ logger: { level: 'warn' }, keepAliveTimeout: 60_000 });
  app.post('/plain', async (request, reply) => {
    if (!BEARER.test(request.headers.authorization ?? '')) return reply.code(401).send({ code: 'UNAUTHORIZED' });
    return reply.code(202).send({});
  });
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  return { url: `${url}/plain`, close: () => app.close() };
}
