import { createServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { createSelfSignedCertificate } from './self-signed-cert.js';
import { pause } from './wait-for.js';

/**
 * A customer's webhook receiver for tests: HTTPS on 127.0.0.1 with a throwaway certificate for
 * `localhost`. It checks every request's signature with the `standardwebhooks` package (an
 * implementation independent of ours) under the secret registered for its path, and answers what
 * the test scripted for that path (200 otherwise).
 */

export interface ReceivedWebhook {
  path: string;
  webhookId: string;
  timestamp: string;
  signature: string;
  contentType: string;
  body: string;
  /** The payload `standardwebhooks` verified, or null when it refused the signature. */
  verified: unknown;
  verifyError: string | null;
}

export interface ReceiverReply {
  status: number;
  body?: string;
  headers?: Record<string, string>;
  /** Wait this long before answering (a receiver that hangs). */
  delayMs?: number;
  /** How many requests get this answer (default 1). */
  times?: number;
}

export interface WebhookReceiver {
  /** `https://localhost:<port>` */
  readonly origin: string;
  readonly port: number;
  /** The `WEBHOOK_ALLOWED_HOSTS` entry that exempts this receiver: `localhost:<port>`. */
  readonly hostRule: string;
  readonly caPem: string;
  readonly keyPem: string;
  readonly received: readonly ReceivedWebhook[];
  /** Verifies requests to `path` with `secret` from now on. */
  expect(path: string, secret: string): void;
  script(path: string, ...replies: ReceiverReply[]): void;
  /** Drops what is still scripted for `path`: it answers 200 from now on (a receiver fixed). */
  unscript(path: string): void;
  requestsTo(path: string): ReceivedWebhook[];
  /** The most requests to `path` that were waiting for their answer at one time. */
  peakInFlight(path: string): number;
  /** Resolves once `path` got `count` requests (rejects after `timeoutMs`). */
  waitFor(path: string, count: number, timeoutMs?: number): Promise<ReceivedWebhook[]>;
  close(): Promise<void>;
}

/** `certificate`: another receiver's, so one trusted CA covers both (a second host for the worker). */
export async function startWebhookReceiver(
  certificate: { cert: string; key: string } = createSelfSignedCertificate('localhost'),
): Promise<WebhookReceiver> {
  const { cert, key } = certificate;
  const received: ReceivedWebhook[] = [];
  const secrets = new Map<string, string>();
  const scripts = new Map<string, ReceiverReply[]>();
  const sockets = new Set<Socket>();
  const waiters = new Set<() => void>();
  const inFlight = new Map<string, number>();
  const peaks = new Map<string, number>();

  const nextReply = (path: string): ReceiverReply => {
    const queue = scripts.get(path) ?? [];
    const reply = queue[0];
    if (!reply) return { status: 200, body: 'ok' };
    const times = (reply.times ?? 1) - 1;
    if (times <= 0) queue.shift();
    else queue[0] = { ...reply, times };
    return reply;
  };

  const server = createServer({ cert, key }, (request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    const path = request.url ?? '/';
    const open = (inFlight.get(path) ?? 0) + 1;
    inFlight.set(path, open);
    peaks.set(path, Math.max(peaks.get(path) ?? 0, open));
    // Answered or given up by the client: either way the request is no longer in flight.
    response.on('close', () => inFlight.set(path, (inFlight.get(path) ?? 1) - 1));
    request.on('end', async () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const header = (name: string) => String(request.headers[name] ?? '');
      const headers = {
        'webhook-id': header('webhook-id'),
        'webhook-timestamp': header('webhook-timestamp'),
        'webhook-signature': header('webhook-signature'),
      };
      let verified: unknown = null;
      let verifyError: string | null = null;
      try {
        verified = new Webhook(secrets.get(path) ?? 'whsec_AAAA').verify(body, headers);
      } catch (error) {
        verifyError = error instanceof Error ? error.message : String(error);
      }
      received.push({
        path,
        webhookId: headers['webhook-id'],
        timestamp: headers['webhook-timestamp'],
        signature: headers['webhook-signature'],
        contentType: header('content-type'),
        body,
        verified,
        verifyError,
      });
      for (const waiter of waiters) waiter();
      const reply = nextReply(path);
      const { delayMs } = reply;
      if (delayMs) {
        // Hangs until the delay ends or the client gives up (which must not keep the process alive).
        const clientGone = new AbortController();
        response.on('close', () => clientGone.abort());
        await pause(delayMs, clientGone.signal);
      }
      if (response.destroyed) return;
      response.writeHead(reply.status, reply.headers ?? {}).end(reply.body ?? '');
    });
  });
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  const requestsTo = (path: string) => received.filter((request) => request.path === path);
  return {
    origin: `https://localhost:${port}`,
    port,
    hostRule: `localhost:${port}`,
    caPem: cert,
    keyPem: key,
    received,
    expect(path, secret) {
      secrets.set(path, secret);
    },
    script(path, ...replies) {
      scripts.set(path, [...(scripts.get(path) ?? []), ...replies]);
    },
    unscript(path) {
      scripts.delete(path);
    },
    requestsTo,
    peakInFlight: (path) => peaks.get(path) ?? 0,
    waitFor(path, count, timeoutMs = 15_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const got = requestsTo(path);
          if (got.length < count) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve(got);
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(
            new Error(`receiver got ${requestsTo(path).length} of ${count} requests to ${path} in ${timeoutMs} ms`),
          );
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
