// The push service of `pnpm bench`, in a process of its own (started by stand-in-process.ts).
//
// Bench mode of @webpush/testing's fake push service: HTTPS with keep-alive on 127.0.0.1 and a
// throwaway certificate for `localhost`, answering 201 to every well-formed push. Every message
// gets the cheap checks (POST to a known `/push/<n>`, TTL, aes128gcm, a vapid Authorization); one
// in BENCH_VERIFY_EVERY is checked in full with the fake's own code (RFC 8292 JWT signature and
// claims, RFC 8291 decryption with the subscriber's private key, a JSON payload with title and
// body). Full checks cost ~0.3 ms a message, more than sending one: doing them all would make the
// stand-in, on the same cores, the bottleneck of what is being measured.
//
// HTTP/2 and HTTP/1.1 on one port (ALPN picks, as at FCM, Mozilla and Apple); BENCH_PUSH_H1_ONLY=1
// offers HTTP/1.1 alone.
//
// Prints one JSON line `{port, certPath}` when listening; answers `{type: 'stats'}` over IPC, and
// `{type: 'mark'}` starts a new "first push since" measurement.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createSecureServer, type Http2ServerRequest, type Http2ServerResponse } from 'node:http2';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  checkPushHeaders,
  createSelfSignedCertificate,
  decryptPushMessage,
  ProtocolViolation,
  verifyVapid,
} from '@webpush/testing';
import { subscriberKeyPool, subscriptionNumber } from './key-pool.js';

export interface StandInStats {
  type: 'stats';
  /** Pushes to a known endpoint, answered or refused. */
  received: number;
  /** Of those, checked in full. */
  verified: number;
  /** Pushes that broke the protocol (answered 4xx); a correct sender has none. */
  violations: number;
  violationSamples: string[];
  /** Requests to paths that are not a stand-in endpoint (answered 404). */
  unknown: number;
  /** TLS connections accepted so far. */
  connections: number;
  /** Of those, HTTP/2 sessions. */
  h2Sessions: number;
  /** Date.now() when the first push after the last `mark` arrived (its headers), null if none yet. */
  firstSinceMark: number | null;
  /** Pushes to known endpoints since the last `mark`. */
  receivedSinceMark: number;
  /** Distinct endpoints among them. */
  distinctSinceMark: number;
  /** Endpoints that got more than one push since the last `mark` (crash and flush phases). */
  duplicatedSinceMark: number;
}

const seed = Buffer.from(process.env.BENCH_KEY_SEED ?? '', 'hex');
if (seed.length < 16) throw new Error('BENCH_KEY_SEED (hex, ≥ 16 bytes) is required');
const pool = subscriberKeyPool(seed, Number(process.env.BENCH_KEY_POOL ?? 1_000));
const verifyEvery = Math.max(1, Number(process.env.BENCH_VERIFY_EVERY ?? 100));
/** Answer after this long, like a push service across a network (FCM answers in tens of ms). */
const delayMs = Math.max(0, Number(process.env.BENCH_PUSH_DELAY_MS ?? 0));
const MAX_BODY_BYTES = 4096;
const h1Only = process.env.BENCH_PUSH_H1_ONLY === '1';

type Request = IncomingMessage | Http2ServerRequest;
type Response = ServerResponse | Http2ServerResponse;

const stats: StandInStats = {
  type: 'stats',
  received: 0,
  verified: 0,
  violations: 0,
  violationSamples: [],
  unknown: 0,
  connections: 0,
  h2Sessions: 0,
  firstSinceMark: null,
  receivedSinceMark: 0,
  distinctSinceMark: 0,
  duplicatedSinceMark: 0,
};
let origin = '';
/** Pushes per endpoint number since the last `mark` (saturating at 255), grown on demand. */
let perEndpoint = new Uint8Array(1 << 16);

function countArrival(n: number) {
  if (n >= perEndpoint.length) {
    const grown = new Uint8Array(Math.max(n + 1, perEndpoint.length * 2));
    grown.set(perEndpoint);
    perEndpoint = grown;
  }
  const before = perEndpoint[n] ?? 0;
  if (before < 255) perEndpoint[n] = before + 1;
  stats.receivedSinceMark++;
  if (before === 0) stats.distinctSinceMark++;
  else if (before === 1) stats.duplicatedSinceMark++;
}

function accept(response: Response) {
  if (delayMs === 0) response.writeHead(201).end();
  else setTimeout(() => response.writeHead(201).end(), delayMs);
}

function refuse(response: Response, status: number, reason: string) {
  stats.violations++;
  if (stats.violationSamples.length < 10) stats.violationSamples.push(reason);
  response.writeHead(status, { 'content-type': 'text/plain' }).end(reason);
}

/** The cheap checks every message gets; a reason when one fails. */
function cheapCheck(request: Request): string | null {
  const { headers } = request;
  if (typeof headers.ttl !== 'string' || !/^\d+$/.test(headers.ttl)) return 'TTL header missing';
  if (headers['content-encoding'] !== 'aes128gcm') return 'Content-Encoding is not aes128gcm';
  if (!headers.authorization?.startsWith('vapid t=')) return 'Authorization is not vapid t=…, k=…';
  const length = Number(headers['content-length']);
  if (!(length > 0 && length <= MAX_BODY_BYTES)) return `Content-Length ${headers['content-length']} not in 1…4096`;
  return null;
}

function fullCheck(request: Request, body: Buffer, n: number): void {
  checkPushHeaders(request);
  verifyVapid(request.headers.authorization, origin, Math.floor(Date.now() / 1000));
  const keys = pool[n % pool.length];
  if (!keys) throw new ProtocolViolation('no key for the endpoint');
  const payload: unknown = JSON.parse(decryptPushMessage(body, keys.secret));
  if (typeof payload !== 'object' || payload === null) throw new ProtocolViolation('payload is not an object');
  // A declarative push message (`BENCH_PUSH_FORMAT=declarative`) carries its title under `notification`.
  const shown =
    'web_push' in payload && (payload as { web_push: unknown }).web_push === 8030
      ? (payload as { notification?: unknown }).notification
      : payload;
  if (typeof shown !== 'object' || shown === null || !('title' in shown)) {
    throw new ProtocolViolation('payload is neither {title, body, …} nor a declarative push message');
  }
}

function handle(request: Request, response: Response) {
  if (stats.firstSinceMark === null) stats.firstSinceMark = Date.now();
  const n = subscriptionNumber(request.url);
  if (request.method !== 'POST' || n === null) {
    stats.unknown++;
    request.resume();
    request.on('end', () => response.writeHead(404).end());
    return;
  }
  countArrival(n);
  const sample = stats.received++ % verifyEvery === 0;
  const cheap = cheapCheck(request);
  if (!sample || cheap !== null) {
    request.resume(); // drain: the connection stays usable for the next message
    request.on('end', () => (cheap === null ? accept(response) : refuse(response, 400, cheap)));
    return;
  }
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    try {
      fullCheck(request, Buffer.concat(chunks), n);
      stats.verified++;
      accept(response);
    } catch (error) {
      const status = error instanceof ProtocolViolation ? error.status : 400;
      refuse(response, status, error instanceof Error ? error.message : String(error));
    }
  });
}

const { cert, key } = createSelfSignedCertificate('localhost');
const certDir = mkdtempSync(join(tmpdir(), 'wp-bench-push-'));
const certPath = join(certDir, 'ca.pem');
writeFileSync(certPath, cert);

const sockets = new Set<import('node:net').Socket>();
const server = h1Only
  ? createServer({ cert, key }, handle)
  : createSecureServer({ cert, key, allowHTTP1: true }, handle);
// Push services keep connections open for minutes; the default 5 s would drop them between runs.
if ('keepAliveTimeout' in server) server.keepAliveTimeout = 120_000;
else server.setTimeout(0);
server.on('secureConnection', (socket: import('node:net').Socket) => {
  stats.connections++;
  sockets.add(socket);
  socket.once('close', () => sockets.delete(socket));
});
server.on('session', () => {
  stats.h2Sessions++;
});
server.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo;
  origin = `https://localhost:${port}`;
  process.stdout.write(`${JSON.stringify({ port, certPath })}\n`);
});

process.on('message', (message: unknown) => {
  if (typeof message === 'object' && message !== null && 'type' in message && message.type === 'stats') {
    process.send?.(stats);
  }
  if (typeof message === 'object' && message !== null && 'type' in message && message.type === 'mark') {
    stats.firstSinceMark = null;
    stats.receivedSinceMark = 0;
    stats.distinctSinceMark = 0;
    stats.duplicatedSinceMark = 0;
    perEndpoint.fill(0);
  }
});

function shutdown() {
  for (const socket of sockets) socket.destroy();
  server.close();
  rmSync(certDir, { recursive: true, force: true });
  process.exit(0);
}
process.on('SIGTERM', shutdown);
process.on('SIGINT', shutdown);
process.on('disconnect', shutdown); // the bench process went away: do not linger
