// Micro-benchmark of the CPU cost of one web push (`pnpm --filter @webpush/push bench`).
// Prints the median µs per operation over several rounds, against web-push's generateRequestDetails,
// which builds the same request but signs a fresh VAPID JWT (via asn1.js + jws) every time.
import { createECDH, randomBytes } from 'node:crypto';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { cpus } from 'node:os';
import { parsePushHosts } from '@webpush/config';
import { createSelfSignedCertificate } from '@webpush/testing';
import webpush from 'web-push';
import {
  buildPushRequest,
  createPushSender,
  encryptPayload,
  type PushOptions,
  type VapidCredentials,
  VapidSigner,
} from '../src/index.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 15);
const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 400);

const subscriber = createECDH('prime256v1');
subscriber.generateKeys();
const target = {
  endpoint: 'https://fcm.googleapis.com/fcm/send/bench-subscription',
  p256dh: subscriber.getPublicKey().toString('base64url'),
  auth: randomBytes(16).toString('base64url'),
};
const keys = { p256dh: subscriber.getPublicKey(), auth: Buffer.from(target.auth, 'base64url') };
const vapidKeys = webpush.generateVAPIDKeys();
const vapid: VapidCredentials = { cacheKey: 'bench-app', ...vapidKeys, subject: 'mailto:bench@example.com' };
const options: PushOptions = { ttl: 86_400, urgency: 'normal' };
const allowlist = parsePushHosts('fcm.googleapis.com');
// A 200-byte notification, a typical size.
const payload = JSON.stringify({ title: 'Bench', body: 'x'.repeat(143), url: 'https://example.com/a' });

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[middle] ?? 0) : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}

/** Median over ROUNDS of the mean µs per call within a round (a warm-up round is discarded). */
function measure(fn: () => unknown): { median: number; min: number; max: number } {
  for (let i = 0; i < ITERATIONS; i++) fn();
  const perCall: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const started = process.hrtime.bigint();
    for (let i = 0; i < ITERATIONS; i++) fn();
    perCall.push(Number(process.hrtime.bigint() - started) / 1000 / ITERATIONS);
  }
  return { median: median(perCall), min: Math.min(...perCall), max: Math.max(...perCall) };
}

const warmSigner = new VapidSigner();
warmSigner.authorization(vapid, 'https://fcm.googleapis.com');
let coldOrigin = 0;
const coldSigner = new VapidSigner();

const cases: [string, () => unknown][] = [
  ['encryptPayload (aes128gcm, new ECDH key pair)', () => encryptPayload(payload, keys)],
  ['VAPID header, cached JWT', () => warmSigner.authorization(vapid, 'https://fcm.googleapis.com')],
  ['VAPID header, fresh ES256 signature', () => coldSigner.authorization(vapid, `https://push${coldOrigin++}.example`)],
  [
    'web-push getVapidHeaders',
    () =>
      webpush.getVapidHeaders(
        'https://fcm.googleapis.com',
        vapid.subject,
        vapid.publicKey,
        vapid.privateKey,
        'aes128gcm',
      ),
  ],
  [
    'buildPushRequest, cached JWT (whole send minus I/O)',
    () => buildPushRequest(target, payload, vapid, options, { allowlist, signer: warmSigner }),
  ],
  [
    'web-push generateRequestDetails',
    () =>
      webpush.generateRequestDetails(
        { endpoint: target.endpoint, keys: { p256dh: target.p256dh, auth: target.auth } },
        payload,
        {
          vapidDetails: { subject: vapid.subject, publicKey: vapid.publicKey, privateKey: vapid.privateKey },
          contentEncoding: 'aes128gcm',
          TTL: options.ttl,
        },
      ),
  ],
];

console.log(`node ${process.version}, ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}`);
console.log(`${ROUNDS} rounds × ${ITERATIONS} calls, ${Buffer.byteLength(payload)}-byte payload; µs per call\n`);
const results = new Map<string, number>();
for (const [name, fn] of cases) {
  const { median: med, min, max } = measure(fn);
  results.set(name, med);
  console.log(
    `${name.padEnd(52)} median ${med.toFixed(1).padStart(7)}   (min ${min.toFixed(1)}, max ${max.toFixed(1)})`,
  );
}
const ours = results.get('buildPushRequest, cached JWT (whole send minus I/O)') ?? 0;
const theirs = results.get('web-push generateRequestDetails') ?? 0;
console.log(
  `\nper-message CPU: ${ours.toFixed(0)} µs vs web-push ${theirs.toFixed(0)} µs (${(theirs / ours).toFixed(1)}×); ` +
    `~${Math.round(1e6 / ours)} messages/s per core`,
);

// End to end: send() over pooled keep-alive TLS to an in-process HTTPS sink that answers 201 at once.
// The sink shares this process's CPU, so this is a floor on I/O overhead, not a push-service figure.
const MESSAGES = Number(process.env.BENCH_SEND_MESSAGES ?? 3000);
const CONCURRENCY = 32;
const { cert, key } = createSelfSignedCertificate('localhost');
const sink = createServer({ cert, key }, (request, response) => {
  request.resume();
  request.on('end', () => response.writeHead(201).end());
});
await new Promise<void>((resolve) => sink.listen(0, '127.0.0.1', resolve));
const { port } = sink.address() as AddressInfo;
let connections = 0;
sink.on('secureConnection', () => connections++);
const sender = createPushSender({ allowlist: parsePushHosts(`localhost:${port}`), ca: cert });
const sinkTarget = { ...target, endpoint: `https://localhost:${port}/push/bench` };
const sendAll = async (count: number) => {
  let next = 0;
  const lane = async () => {
    while (next++ < count) {
      const outcome = await sender.send(sinkTarget, payload, vapid, options);
      if (outcome.kind !== 'sent') throw new Error(`bench send failed: ${JSON.stringify(outcome)}`);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, lane));
};
await sendAll(500); // warm-up: connections opened, JWT signed
const sendRounds: number[] = [];
for (let round = 0; round < 5; round++) {
  const started = process.hrtime.bigint();
  await sendAll(MESSAGES);
  sendRounds.push(Number(process.hrtime.bigint() - started) / 1000 / MESSAGES);
}
const perSend = median(sendRounds);
console.log(
  `send() to a local HTTPS sink, ${CONCURRENCY} in flight: median ${perSend.toFixed(1)} µs per message ` +
    `(~${Math.round(1e6 / perSend)}/s, both ends in this process) over ${connections} TLS connections`,
);
await sender.close();
sink.close();
