// A sender without queue or database, in a process of its own like the worker, trusting the push
// stand-in through NODE_EXTRA_CA_CERTS. `argv[2]` is a JSON file holding a SenderJob; prints
// `{"ready":true}` once loaded, then runs once for each line `run` on its stdin and prints one JSON
// line per run: `{run, sent, failed, seconds, firstError}`. It closes its connections and exits when
// its stdin ends. Driven line by line so that the bench can interleave its runs with the worker's.
//
// - `naive`: web-push's sendNotification in a promise pool, as its README shows it. It builds the
//   VAPID header per message (PEM conversion and a fresh ES256 signature each time).
// - `bare`: @webpush/push's createPushSender, the worker's own sender (node:crypto aes128gcm, JWT
//   signed once per origin and cached, keep-alive HTTPS pool) in a promise pool: the upper bound
//   of what the worker can do once queue and database cost nothing.
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { parsePushHosts } from '@webpush/config';
import { createPushSender, type PushTarget } from '@webpush/push';
import webpush from 'web-push';

export interface SenderJob {
  /** `bare-h1` / `bare-h2`: the bare sender with HTTP/2 off (HTTP/1.1 keep-alive pool) / on. */
  mode: 'naive' | 'bare-h1' | 'bare-h2';
  concurrency: number;
  /** Sockets per push-service origin of the bare sender (the worker's PUSH_CONCURRENCY). */
  maxSocketsPerOrigin: number;
  targets: PushTarget[];
  vapid: { publicKey: string; privateKey: string; subject: string };
  payload: string;
  /** PUSH_SERVICE_HOSTS entry of the stand-in. */
  hostRule: string;
  ttl: number;
}

export interface SenderRun {
  run: number;
  sent: number;
  failed: number;
  seconds: number;
  firstError: string | null;
}

type Send = (target: PushTarget) => Promise<string | null>;

async function pool(targets: readonly PushTarget[], concurrency: number, send: Send): Promise<SenderRun> {
  let next = 0;
  let sent = 0;
  let failed = 0;
  let firstError: string | null = null;
  const started = performance.now();
  const lane = async () => {
    while (next < targets.length) {
      const target = targets[next++] as PushTarget;
      const error = await send(target);
      if (error === null) sent++;
      else {
        failed++;
        firstError ??= error;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, targets.length) }, lane));
  return { run: 0, sent, failed, seconds: (performance.now() - started) / 1000, firstError };
}

const jobPath = process.argv[2];
if (!jobPath) throw new Error('usage: sender-child.ts <job.json>');
const job = JSON.parse(readFileSync(jobPath, 'utf8')) as SenderJob;

let send: Send;
let close = async () => {};
if (job.mode === 'naive') {
  const options = {
    vapidDetails: job.vapid,
    TTL: job.ttl,
    urgency: 'normal' as const,
    contentEncoding: 'aes128gcm' as const,
  };
  send = async (target) => {
    try {
      await webpush.sendNotification(
        { endpoint: target.endpoint, keys: { p256dh: target.p256dh, auth: target.auth } },
        job.payload,
        options,
      );
      return null;
    } catch (error) {
      return error instanceof Error ? error.message : String(error);
    }
  };
} else {
  const sender = createPushSender({
    allowlist: parsePushHosts(job.hostRule),
    maxSocketsPerOrigin: job.maxSocketsPerOrigin,
    http2: job.mode === 'bare-h2',
  });
  const vapid = { cacheKey: 'bench', ...job.vapid };
  const options = { ttl: job.ttl, urgency: 'normal' as const };
  send = async (target) => {
    const outcome = await sender.send(target, job.payload, vapid, options);
    return outcome.kind === 'sent' ? null : `${outcome.kind}: ${'reason' in outcome ? outcome.reason : outcome.status}`;
  };
  close = () => sender.close();
}

process.stdout.write(`${JSON.stringify({ ready: true })}\n`);
let run = 0;
for await (const line of createInterface({ input: process.stdin })) {
  if (line.trim() !== 'run') throw new Error(`sender-child: unknown command ${JSON.stringify(line)}`);
  const result = await pool(job.targets, job.concurrency, send);
  process.stdout.write(`${JSON.stringify({ ...result, run: ++run })}\n`);
}
await close();
// web-push's pooled keep-alive sockets (the global agent) would hold the process open.
process.exit(0);
