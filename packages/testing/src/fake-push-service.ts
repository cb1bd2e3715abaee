import {
  createDecipheriv,
  createECDH,
  createHmac,
  createPublicKey,
  type KeyObject,
  randomBytes,
  randomUUID,
  verify,
} from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createSecureServer, type Http2ServerRequest, type Http2ServerResponse } from 'node:http2';
import { createServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSelfSignedCertificate } from './self-signed-cert.js';

/**
 * A stand-in push service (FCM, Mozilla autopush…) for tests: HTTPS on 127.0.0.1 with a throwaway
 * certificate for `localhost`. It holds real subscription key pairs, checks every message the way
 * a strict push service would (RFC 8030 headers, RFC 8292 VAPID, RFC 8291 aes128gcm) and keeps what
 * it decrypted, so a green delivery test proves a browser could have read the message.
 *
 * Written from the RFCs with node:crypto only, deliberately without @webpush/push: the sender is
 * checked against an independent implementation, not against itself.
 *
 * It speaks HTTP/2 and HTTP/1.1 on one port (ALPN picks; `{ http2: false }` for HTTP/1.1 only), as
 * FCM, Mozilla autopush and Apple's web push do; `httpVersion` of each message says which was used.
 *
 * In-process senders trust `caPem`; child processes get `NODE_EXTRA_CA_CERTS=<certPath>`.
 * Allow it with `PUSH_SERVICE_HOSTS=<hostRule>`.
 */

export interface FakeSubscription {
  id: string;
  /** `https://localhost:<port>/push/<id>` */
  endpoint: string;
  /** base64url uncompressed P-256 public key, as `getKey('p256dh')` gives it */
  p256dh: string;
  /** base64url 16-byte auth secret */
  auth: string;
}

/** How to answer the next message(s) to a subscription. Messages are verified and recorded first. */
export interface FakeReply {
  status: number;
  /** `Retry-After` header value, e.g. `'3'` or an HTTP date. */
  retryAfter?: string;
  /** Wait this long before answering (to exercise timeouts). */
  delayMs?: number;
  /** How many messages get this answer (default 1; `Infinity` for every one from now on). */
  times?: number;
}

export interface VapidClaims {
  aud: string;
  exp: number;
  sub: string;
}

export interface ReceivedPush {
  subscriptionId: string;
  /** The decrypted payload, as UTF-8 text. */
  payload: string;
  ttl: number;
  urgency: string | null;
  topic: string | null;
  claims: VapidClaims;
  jwt: string;
  /** The `k=` of the Authorization header: the VAPID public key the JWT was verified with. */
  vapidPublicKey: string;
  /** What the stand-in answered (201 unless scripted otherwise). */
  status: number;
  /** The TLS connection the message came on (1, 2, …), to see keep-alive reuse and multiplexing. */
  connection: number;
  /** `'2.0'` over HTTP/2, `'1.1'` over HTTP/1.1. */
  httpVersion: string;
}

export interface FakePushServiceOptions {
  /** Offer HTTP/2 (ALPN `h2`) beside HTTP/1.1. Default true. */
  http2?: boolean;
  /**
   * Answer as this push service documents. `apple` (web.push.apple.com), from "Sending web push
   * notifications in web apps and browsers"
   * (https://developer.apple.com/documentation/usernotifications/sending-web-push-notifications-in-web-apps-and-browsers):
   * refusals carry `{"reason": "…"}`; a JWT Apple does not accept is `403 BadJwtToken`, which in
   * practice includes a `sub` at localhost or an example domain (web-push-libs/web-push#947,
   * pywebpush#175); a message signed with another key than the subscription's is
   * `400 VapidPkHashMismatch`. Default `generic`: a refusal's body is plain text.
   */
  service?: 'generic' | 'apple';
}

export interface ProtocolError {
  subscriptionId: string | null;
  reason: string;
}

export interface FakePushService {
  readonly origin: string;
  readonly port: number;
  /** The `PUSH_SERVICE_HOSTS` entry that allows this service: `localhost:<port>`. */
  readonly hostRule: string;
  /** PEM of the self-signed certificate, for an in-process sender's `ca`. */
  readonly caPem: string;
  /** File holding `caPem`, for a child process's `NODE_EXTRA_CA_CERTS`. Removed on close. */
  readonly certPath: string;
  /** Every verified message, answered 2xx or not, in arrival order. */
  readonly received: readonly ReceivedPush[];
  /** Messages refused because their VAPID, encryption or headers were wrong: a test wants this empty. */
  readonly protocolErrors: readonly ProtocolError[];
  /** TLS connections accepted so far. */
  readonly connections: number;
  /**
   * A new subscription. With `applicationServerKey` (base64url) it is bound to that VAPID key, as a
   * browser's is: a message signed with another key is a protocol error, answered 403 (or Apple's
   * `400 VapidPkHashMismatch`).
   */
  subscribe(options?: { applicationServerKey?: string }): FakeSubscription;
  /** Queues answers for the subscription's next messages; after them it answers 201 again. */
  script(subscriptionId: string, ...replies: FakeReply[]): void;
  /** Messages to one subscription that were answered 2xx. */
  deliveredTo(subscriptionId: string): ReceivedPush[];
  /** Resolves once `count` messages have been received in total (rejects after `timeoutMs`). */
  waitForMessages(count: number, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

/** A subscriber's own keys: what it needs to read a message sent to it. */
export interface SubscriberKeys {
  privateKey: Buffer;
  publicKey: Buffer;
  auth: Buffer;
}

interface SubscriptionState extends SubscriberKeys {
  subscription: FakeSubscription;
  replies: FakeReply[];
  applicationServerKey: string | null;
}

/**
 * The sender broke the protocol; `status` is what a strict push service would answer, and
 * `appleReason` the `reason` Apple's push service gives for it.
 */
export class ProtocolViolation extends Error {
  constructor(
    message: string,
    readonly status = 400,
    readonly appleReason?: string,
  ) {
    super(message);
  }
}

/**
 * Subjects Apple refuses with 403 BadJwtToken although they are well-formed: a host that is
 * localhost, `.local`, `.localhost`, or an example domain (RFC 2606 / RFC 6761 names).
 */
export function isUnreachableSubject(sub: string): boolean {
  let host = '';
  if (sub.startsWith('mailto:')) host = sub.slice(sub.lastIndexOf('@') + 1);
  else if (URL.canParse(sub)) host = new URL(sub).hostname;
  const name = host.toLowerCase().replace(/\.$/, '');
  return (
    name === '' ||
    name === 'localhost' ||
    !name.includes('.') ||
    /\.(local|localhost|test|invalid|example)$/.test(name) ||
    /(^|\.)example\.(com|net|org)$/.test(name)
  );
}

const MAX_BODY_BYTES = 4096; // RFC 8030 §7.2: a push service must accept at least this much; we accept no more
const MAX_JWT_LIFETIME_SECONDS = 24 * 60 * 60; // RFC 8292 §2

const b64u = (text: string): Buffer => {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) throw new ProtocolViolation('value is not unpadded base64url');
  return Buffer.from(text, 'base64url');
};

const hmacSha256 = (key: Buffer, ...parts: Buffer[]): Buffer => {
  const mac = createHmac('sha256', key);
  for (const part of parts) mac.update(part);
  return mac.digest();
};

function parseJson(bytes: Buffer, what: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(bytes.toString('utf8'));
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    // reported below
  }
  throw new ProtocolViolation(`${what} is not a JSON object`);
}

/** RFC 8292 §3: `Authorization: vapid t=<jwt>, k=<key>`; ES256 over the key in `k`. */
export function verifyVapid(
  header: string | undefined,
  origin: string,
  nowSeconds: number,
): { claims: VapidClaims; jwt: string; k: string } {
  const match = /^vapid\s+(.+)$/i.exec(header ?? '');
  if (!match?.[1]) throw new ProtocolViolation('Authorization is not `vapid t=…, k=…`', 401);
  const params = new Map<string, string>();
  for (const part of match[1].split(',')) {
    const eq = part.indexOf('=');
    if (eq > 0) params.set(part.slice(0, eq).trim().toLowerCase(), part.slice(eq + 1).trim());
  }
  const jwt = params.get('t');
  const k = params.get('k');
  if (!jwt || !k) throw new ProtocolViolation('vapid Authorization lacks t= or k=', 401);

  const point = b64u(k);
  if (point.length !== 65 || point[0] !== 0x04)
    throw new ProtocolViolation('k is not an uncompressed P-256 point', 401);
  let key: KeyObject;
  try {
    key = createPublicKey({
      format: 'jwk',
      key: {
        kty: 'EC',
        crv: 'P-256',
        x: point.subarray(1, 33).toString('base64url'),
        y: point.subarray(33).toString('base64url'),
      },
    });
  } catch {
    throw new ProtocolViolation('k is not on P-256', 401);
  }

  const parts = jwt.split('.');
  if (parts.length !== 3) throw new ProtocolViolation('t is not a JWS compact serialisation', 401);
  const [headerPart = '', claimsPart = '', signaturePart = ''] = parts;
  const jwtHeader = parseJson(b64u(headerPart), 'JWT header');
  if (jwtHeader.alg !== 'ES256') throw new ProtocolViolation('JWT alg is not ES256', 401);
  const signature = b64u(signaturePart);
  if (signature.length !== 64) throw new ProtocolViolation('ES256 signature is not 64 bytes (r‖s)', 401);
  const signed = Buffer.from(`${headerPart}.${claimsPart}`, 'latin1');
  if (!verify('sha256', signed, { key, dsaEncoding: 'ieee-p1363' }, signature)) {
    throw new ProtocolViolation('JWT signature does not verify with k', 403);
  }

  const claims = parseJson(b64u(claimsPart), 'JWT claims');
  const { aud, exp, sub } = claims;
  if (aud !== origin) throw new ProtocolViolation(`JWT aud ${String(aud)} is not ${origin}`, 403);
  if (typeof exp !== 'number' || !Number.isInteger(exp)) throw new ProtocolViolation('JWT exp is not an integer', 403);
  if (exp <= nowSeconds) throw new ProtocolViolation('JWT has expired', 403);
  if (exp > nowSeconds + MAX_JWT_LIFETIME_SECONDS) throw new ProtocolViolation('JWT exp is over 24 h ahead', 403);
  if (typeof sub !== 'string' || !/^(mailto:|https:)/.test(sub)) {
    throw new ProtocolViolation('JWT sub is not a mailto: or https: URL', 403);
  }
  return { claims: { aud, exp, sub }, jwt, k };
}

/** RFC 8291 / RFC 8188: decrypts one aes128gcm record with the subscription's private key. */
export function decryptPushMessage(body: Buffer, state: SubscriberKeys): string {
  if (body.length < 21) throw new ProtocolViolation('body shorter than an aes128gcm header');
  const salt = body.subarray(0, 16);
  const recordSize = body.readUInt32BE(16);
  const idLength = body.readUInt8(20);
  if (idLength !== 65) throw new ProtocolViolation('keyid is not a 65-byte P-256 point (RFC 8291 §4)');
  const senderPublicKey = body.subarray(21, 21 + idLength);
  const record = body.subarray(21 + idLength);
  if (recordSize < 18) throw new ProtocolViolation('record size below 18');
  if (record.length < 17) throw new ProtocolViolation('record shorter than its tag');
  if (record.length > recordSize) throw new ProtocolViolation('more than one record (RFC 8291 §4 allows one)');

  const ecdh = createECDH('prime256v1');
  ecdh.setPrivateKey(state.privateKey);
  let sharedSecret: Buffer;
  try {
    sharedSecret = ecdh.computeSecret(senderPublicKey);
  } catch {
    throw new ProtocolViolation('keyid is not on P-256');
  }
  const prkKey = hmacSha256(state.auth, sharedSecret);
  const keyInfo = Buffer.concat([Buffer.from('WebPush: info\0', 'latin1'), state.publicKey, senderPublicKey]);
  const ikm = hmacSha256(prkKey, keyInfo, Buffer.from([1]));
  const prk = hmacSha256(salt, ikm);
  const contentKey = hmacSha256(prk, Buffer.from('Content-Encoding: aes128gcm\0\x01', 'latin1')).subarray(0, 16);
  const nonce = hmacSha256(prk, Buffer.from('Content-Encoding: nonce\0\x01', 'latin1')).subarray(0, 12);

  const decipher = createDecipheriv('aes-128-gcm', contentKey, nonce);
  decipher.setAuthTag(record.subarray(record.length - 16));
  let plaintext: Buffer;
  try {
    plaintext = Buffer.concat([decipher.update(record.subarray(0, record.length - 16)), decipher.final()]);
  } catch {
    throw new ProtocolViolation('record does not decrypt (wrong keys or corrupted ciphertext)');
  }
  let end = plaintext.length;
  while (end > 0 && plaintext[end - 1] === 0) end--;
  if (end === 0 || plaintext[end - 1] !== 0x02) throw new ProtocolViolation('last record lacks the 0x02 delimiter');
  return plaintext.subarray(0, end - 1).toString('utf8');
}

/** RFC 8030 §5: TTL required, Urgency and Topic well formed, aes128gcm content coding. */
export function checkPushHeaders(request: IncomingMessage | Http2ServerRequest): {
  ttl: number;
  urgency: string | null;
  topic: string | null;
} {
  const ttlHeader = request.headers.ttl;
  if (typeof ttlHeader !== 'string' || !/^\d+$/.test(ttlHeader)) throw new ProtocolViolation('TTL header missing');
  const urgency = request.headers.urgency ?? null;
  if (urgency !== null && (typeof urgency !== 'string' || !['very-low', 'low', 'normal', 'high'].includes(urgency))) {
    throw new ProtocolViolation('Urgency is not very-low, low, normal or high');
  }
  const topic = request.headers.topic ?? null;
  if (topic !== null && (typeof topic !== 'string' || !/^[A-Za-z0-9_-]{1,32}$/.test(topic))) {
    throw new ProtocolViolation('Topic is not 1–32 base64url characters');
  }
  if (request.headers['content-encoding'] !== 'aes128gcm')
    throw new ProtocolViolation('Content-Encoding is not aes128gcm');
  return { ttl: Number(ttlHeader), urgency, topic };
}

function readBody(request: IncomingMessage | Http2ServerRequest): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
    });
    request.on('end', () => {
      if (size > MAX_BODY_BYTES) reject(new ProtocolViolation(`body over ${MAX_BODY_BYTES} bytes`, 413));
      else resolve(Buffer.concat(chunks));
    });
    request.on('error', reject);
  });
}

/** Set on each accepted TLS socket; HTTP/2's socket proxy forwards the read to the socket. */
const CONNECTION_ID = Symbol('connectionId');

export async function startFakePushService(options: FakePushServiceOptions = {}): Promise<FakePushService> {
  const { cert, key } = createSelfSignedCertificate('localhost');
  const certDir = mkdtempSync(join(tmpdir(), 'fake-push-'));
  const certPath = join(certDir, 'ca.pem');
  writeFileSync(certPath, cert);

  const subscriptions = new Map<string, SubscriptionState>();
  const received: ReceivedPush[] = [];
  const protocolErrors: ProtocolError[] = [];
  const waiters = new Set<() => void>();
  const sockets = new Set<Socket>();
  let connections = 0;
  let origin = '';

  const nextReply = (state: SubscriptionState): FakeReply => {
    const reply = state.replies[0];
    if (!reply) return { status: 201 };
    const times = (reply.times ?? 1) - 1;
    if (times <= 0) state.replies.shift();
    else state.replies[0] = { ...reply, times };
    return reply;
  };

  type Request = IncomingMessage | Http2ServerRequest;
  type Response = ServerResponse | Http2ServerResponse;
  const handle = async (request: Request, response: Response) => {
    const id = /^\/push\/([A-Za-z0-9_-]+)$/.exec(request.url ?? '')?.[1] ?? null;
    const state = id === null ? undefined : subscriptions.get(id);
    try {
      if (request.method !== 'POST') throw new ProtocolViolation(`method ${request.method} is not POST`, 405);
      const body = await readBody(request);
      if (!state) {
        // A push service does not know the endpoint: not the sender's fault, so not a protocol error.
        response.writeHead(404).end();
        return;
      }
      const headers = checkPushHeaders(request);
      const vapid = verifyVapid(request.headers.authorization, origin, Math.floor(Date.now() / 1000));
      if (options.service === 'apple' && isUnreachableSubject(vapid.claims.sub))
        throw new ProtocolViolation(`JWT sub ${vapid.claims.sub} is not reachable`, 403, 'BadJwtToken');
      if (state.applicationServerKey !== null && vapid.k !== state.applicationServerKey)
        throw new ProtocolViolation(
          'signed with another VAPID key than the subscription was made with',
          options.service === 'apple' ? 400 : 403,
          'VapidPkHashMismatch',
        );
      const payload = decryptPushMessage(body, state);
      const reply = nextReply(state);
      received.push({
        subscriptionId: state.subscription.id,
        payload,
        ...headers,
        claims: vapid.claims,
        jwt: vapid.jwt,
        vapidPublicKey: vapid.k,
        status: reply.status,
        connection: (request.socket as unknown as { [CONNECTION_ID]?: number })[CONNECTION_ID] ?? 0,
        httpVersion: request.httpVersion,
      });
      for (const wake of waiters) wake();
      if (reply.delayMs) await new Promise((resolve) => setTimeout(resolve, reply.delayMs));
      if (response.destroyed) return;
      const replyHeaders: Record<string, string> = {};
      if (reply.retryAfter !== undefined) replyHeaders['Retry-After'] = reply.retryAfter;
      if (reply.status === 201) replyHeaders.Location = `${origin}/message/${randomUUID()}`;
      response.writeHead(reply.status, replyHeaders).end();
    } catch (error) {
      if (!(error instanceof ProtocolViolation)) throw error;
      protocolErrors.push({ subscriptionId: state?.subscription.id ?? id, reason: error.message });
      if (response.destroyed) return;
      if (options.service === 'apple')
        response
          .writeHead(error.status, { 'Content-Type': 'application/json' })
          .end(JSON.stringify({ reason: error.appleReason ?? 'BadRequest' }));
      else response.writeHead(error.status, { 'Content-Type': 'text/plain' }).end(error.message);
    }
  };

  const onRequest = (request: Request, response: Response) => {
    handle(request, response).catch((error: unknown) => {
      protocolErrors.push({ subscriptionId: null, reason: `stand-in crashed: ${String(error)}` });
      if (!response.destroyed) response.writeHead(500).end();
    });
  };
  const server =
    options.http2 === false
      ? createServer({ cert, key }, onRequest)
      : createSecureServer({ cert, key, allowHTTP1: true }, onRequest);
  server.on('secureConnection', (socket: Socket & { [CONNECTION_ID]?: number }) => {
    socket[CONNECTION_ID] = ++connections;
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  origin = `https://localhost:${port}`;

  return {
    origin,
    port,
    hostRule: `localhost:${port}`,
    caPem: cert,
    certPath,
    received,
    protocolErrors,
    get connections() {
      return connections;
    },
    subscribe(subscribeOptions = {}) {
      const ecdh = createECDH('prime256v1');
      ecdh.generateKeys();
      const id = randomBytes(12).toString('base64url');
      const auth = randomBytes(16);
      const subscription = {
        id,
        endpoint: `${origin}/push/${id}`,
        p256dh: ecdh.getPublicKey().toString('base64url'),
        auth: auth.toString('base64url'),
      };
      subscriptions.set(id, {
        subscription,
        privateKey: ecdh.getPrivateKey(),
        publicKey: ecdh.getPublicKey(),
        auth,
        replies: [],
        applicationServerKey: subscribeOptions.applicationServerKey ?? null,
      });
      return subscription;
    },
    script(subscriptionId, ...replies) {
      const state = subscriptions.get(subscriptionId);
      if (!state) throw new Error(`no subscription ${subscriptionId} on this stand-in`);
      state.replies.push(...replies);
    },
    deliveredTo(subscriptionId) {
      return received.filter((m) => m.subscriptionId === subscriptionId && m.status >= 200 && m.status < 300);
    },
    waitForMessages(count, timeoutMs = 10_000) {
      return new Promise<void>((resolve, reject) => {
        const check = () => {
          if (received.length < count) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve();
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`stand-in push service got ${received.length} of ${count} messages in ${timeoutMs} ms`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(certDir, { recursive: true, force: true });
    },
  };
}
