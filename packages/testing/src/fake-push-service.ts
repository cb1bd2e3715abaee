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
import { pause } from './wait-for.js';

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
  /** More answer headers (WNS's `X-WNS-CONTINUE-AFTER`…); the service mode adds its own. */
  headers?: Record<string, string>;
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
  /** When it arrived (ms since the epoch), to check that a retry waited for Retry-After. */
  at: number;
  /** The request's headers (lower-case names), `authorization` left out. */
  headers: Record<string, string>;
  /** Accepted while the browser was offline and not handed to it yet (`setOnline`). */
  pending?: boolean;
  /** Replaced before delivery by a newer message with the same `Topic` (RFC 8030 §5.4). */
  replaced?: boolean;
  /** Accepted with TTL 0 while the browser was offline, so never delivered (RFC 8030 §5.2). */
  dropped?: boolean;
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
   *
   * `mozilla` (autopush, updates.push.services.mozilla.com), from "Error Codes"
   * (https://mozilla-services.github.io/autopush-rs/errors.html) and "HTTP Endpoints for
   * Notifications" (https://mozilla-services.github.io/autopush-rs/http.html): every refusal is
   * JSON `{"code", "errno", "error", "message"}`; a body over 4,096 bytes is `413` errno 104; a
   * `Topic` that is not 1–32 URL-safe characters is `400` errno 113; TTL missing is errno 111,
   * over 2,592,000 s errno 112; a bad VAPID header `401` errno 109; a message signed with another
   * key than the subscription's `404` errno 102 ("Common Issues and Reporting Bugs",
   * https://web.dev/articles/push-notifications-common-issues-and-reporting-bugs); `429` errno 201
   * carries `Retry-After`. A newer message with the same `Topic` replaces one not delivered yet.
   *
   * `fcm` (fcm.googleapis.com), from the same web.dev page: any VAPID problem — no Authorization,
   * a JWT over 24 h or expired, a malformed JWT, or a subscription made with another key — is
   * `400` with an HTML body titled `UnauthorizedRegistration`; `429` carries `Retry-After`
   * ("Best practices when sending FCM messages at scale",
   * https://firebase.google.com/docs/cloud-messaging/scale-fcm); over 4,096 bytes is `413`.
   *
   * `wns` (*.notify.windows.com), from "Push notification service request and response headers"
   * (https://learn.microsoft.com/windows/apps/design/shell/tiles-and-notifications/push-request-response-headers):
   * accepted is `200` with `X-WNS-Status: received`; `406` is its throttle (`X-WNS-Status:
   * channelthrottled`, `X-WNS-CONTINUE-AFTER` seconds); `410` the channel expired; `413` over
   * 5,000 bytes; `401` no valid authentication, `403` another sender's channel; reasons in
   * `X-WNS-Error-Description`, not the body. `TTL: 0` without `X-WNS-Cache-Policy: no-cache` is
   * `400` "Ttl value conflicts with X-WNS-Cache-Policy." (caching is WNS's default; observed in
   * web-push-libs/pywebpush#162 and SherClockHolmes/webpush-go#66). Use it with `publicHost`.
   */
  service?: 'generic' | 'apple' | 'mozilla' | 'fcm' | 'wns';
  /**
   * The push service's public host name (`wns2-par02p.notify.windows.com`): endpoints and the JWT
   * `aud` are then `https://<publicHost>` (port 443), the certificate names it, and a test reaches it
   * through `startConnectProxy({ routes: { [`${publicHost}:443`]: port } })`. Default `localhost:<port>`.
   */
  publicHost?: string;
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
  /**
   * Takes the subscription's browser offline (messages are accepted and held, a `Topic` replaces
   * the held one with that topic, TTL 0 is dropped) or back online (what is held is delivered).
   */
  setOnline(subscriptionId: string, online: boolean): void;
  /** Messages the subscription's browser got: answered 2xx, and not held, replaced or dropped. */
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
  offline: boolean;
}

/** What a refusal is about, so each service mode can answer it in its own words. */
export type ViolationKind = 'request' | 'vapid' | 'key-mismatch' | 'size' | 'ttl' | 'topic' | 'encryption';

/**
 * The sender broke the protocol; `status` is what a strict push service would answer, and
 * `appleReason` the `reason` Apple's push service gives for it.
 */
export class ProtocolViolation extends Error {
  constructor(
    message: string,
    readonly status = 400,
    readonly appleReason?: string,
    public kind: ViolationKind = 'request',
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
const WNS_MAX_BODY_BYTES = 5000; // WNS: "The notification payload exceeds the 5000 byte size limit"
const MOZILLA_MAX_TTL_SECONDS = 2_592_000; // autopush errno 112: "between 0 and 2592000"
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
  if (typeof ttlHeader !== 'string' || !/^\d+$/.test(ttlHeader))
    throw new ProtocolViolation('TTL header missing', 400, undefined, 'ttl');
  const urgency = request.headers.urgency ?? null;
  if (urgency !== null && (typeof urgency !== 'string' || !['very-low', 'low', 'normal', 'high'].includes(urgency))) {
    throw new ProtocolViolation('Urgency is not very-low, low, normal or high');
  }
  const topic = request.headers.topic ?? null;
  if (topic !== null && (typeof topic !== 'string' || !/^[A-Za-z0-9_-]{1,32}$/.test(topic))) {
    throw new ProtocolViolation('Topic is not 1–32 base64url characters', 400, undefined, 'topic');
  }
  if (request.headers['content-encoding'] !== 'aes128gcm')
    throw new ProtocolViolation('Content-Encoding is not aes128gcm');
  return { ttl: Number(ttlHeader), urgency, topic };
}

function readBody(request: IncomingMessage | Http2ServerRequest, limit = MAX_BODY_BYTES): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) chunks.push(chunk);
    });
    request.on('end', () => {
      if (size > limit) reject(new ProtocolViolation(`body over ${limit} bytes`, 413, 'PayloadTooLarge', 'size'));
      else resolve(Buffer.concat(chunks));
    });
    request.on('error', reject);
  });
}

/** Set on each accepted TLS socket; HTTP/2's socket proxy forwards the read to the socket. */
const CONNECTION_ID = Symbol('connectionId');

/** A refusal or an answer as one push service words it: status, headers and body. */
interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

const MOZILLA_ERRNO: Record<ViolationKind, number> = {
  request: 111,
  vapid: 109,
  'key-mismatch': 102,
  size: 104,
  ttl: 111,
  topic: 113,
  encryption: 110,
};
/** autopush's errno for a status it answers of its own (errors.html). */
const MOZILLA_STATUS_ERRNO: Record<number, number> = {
  400: 111,
  401: 109,
  404: 102,
  410: 103,
  413: 104,
  429: 201,
  500: 999,
  502: 900,
  503: 201,
};
const HTTP_TEXT: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  406: 'Not Acceptable',
  410: 'Gone',
  413: 'Payload Too Large',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
};

const mozillaError = (status: number, errno: number, message: string): Answer => ({
  status,
  headers: { 'Content-Type': 'application/json' },
  body: JSON.stringify({
    code: status,
    errno,
    error: HTTP_TEXT[status] ?? 'Error',
    more_info: 'http://autopush.readthedocs.io/en/latest/http.html#error-codes',
    message,
  }),
});

/** FCM's answer to every VAPID problem (web.dev, "Common Issues and Reporting Bugs"). */
const FCM_UNAUTHORIZED_REGISTRATION =
  '<html><head><title>UnauthorizedRegistration</title></head><body bgcolor="#FFFFFF" text="#000000">' +
  '<h1>UnauthorizedRegistration</h1><h2>Error 400</h2></body></html>';

const wnsHeaders = (status: string, more: Record<string, string> = {}) => ({
  'X-WNS-Status': status,
  'X-WNS-Msg-ID': randomBytes(8).toString('hex').toUpperCase(),
  'X-WNS-Debug-Trace': 'FAKEPUSH',
  ...more,
});

/** How each service mode words a refusal of the sender's message. */
function refusal(service: FakePushServiceOptions['service'], error: ProtocolViolation): Answer {
  switch (service) {
    case 'apple':
      return {
        status: error.status,
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ reason: error.appleReason ?? 'BadRequest' }),
      };
    case 'mozilla': {
      const status =
        error.kind === 'vapid' ? 401 : error.kind === 'key-mismatch' ? 404 : error.kind === 'size' ? 413 : 400;
      const errno = error.kind === 'ttl' && /ttl/i.test(error.message) && !/missing/.test(error.message) ? 112 : 0;
      return mozillaError(status, errno || MOZILLA_ERRNO[error.kind], `Request did not validate ${error.message}`);
    }
    case 'fcm':
      if (error.kind === 'vapid' || error.kind === 'key-mismatch')
        return {
          status: 400,
          headers: { 'Content-Type': 'text/html; charset=UTF-8' },
          body: FCM_UNAUTHORIZED_REGISTRATION,
        };
      return {
        status: error.kind === 'size' ? 413 : 400,
        headers: { 'Content-Type': 'text/plain' },
        body: error.message,
      };
    case 'wns': {
      const status =
        error.kind === 'vapid' ? 401 : error.kind === 'key-mismatch' ? 403 : error.kind === 'size' ? 413 : 400;
      // WNS says why in a header; the body is empty.
      return { status, headers: wnsHeaders('dropped', { 'X-WNS-Error-Description': error.message }), body: '' };
    }
    default:
      return { status: error.status, headers: { 'Content-Type': 'text/plain' }, body: error.message };
  }
}

/** How each service mode words a scripted answer (or the default 201). */
function scriptedAnswer(service: FakePushServiceOptions['service'], reply: FakeReply, origin: string): Answer {
  const headers: Record<string, string> = {};
  if (reply.retryAfter !== undefined) headers['Retry-After'] = reply.retryAfter;
  const ok = reply.status >= 200 && reply.status < 300;
  let answer: Answer;
  if (service === 'wns') {
    // WNS accepts with 200, never 201 ("200 OK: The notification was accepted by WNS").
    const status = reply.status === 201 ? 200 : reply.status;
    const wnsStatus = ok ? 'received' : status === 406 ? 'channelthrottled' : 'dropped';
    answer = { status, headers: { ...headers, ...wnsHeaders(wnsStatus) }, body: '' };
  } else if (ok) {
    answer = { status: reply.status, headers: { ...headers, Location: `${origin}/message/${randomUUID()}` }, body: '' };
  } else if (service === 'mozilla') {
    const error = mozillaError(reply.status, MOZILLA_STATUS_ERRNO[reply.status] ?? 999, HTTP_TEXT[reply.status] ?? '');
    answer = { ...error, headers: { ...headers, ...error.headers } };
  } else if (service === 'apple') {
    const reason = reply.status === 410 ? 'Unregistered' : reply.status === 429 ? 'TooManyRequests' : 'BadRequest';
    answer = {
      status: reply.status,
      headers: { ...headers, 'Content-Type': 'application/json' },
      body: JSON.stringify({ reason }),
    };
  } else {
    answer = { status: reply.status, headers, body: '' };
  }
  return { ...answer, headers: { ...answer.headers, ...reply.headers } };
}

export async function startFakePushService(options: FakePushServiceOptions = {}): Promise<FakePushService> {
  const { cert, key } = createSelfSignedCertificate('localhost', 30, options.publicHost ? [options.publicHost] : []);
  const certDir = mkdtempSync(join(tmpdir(), 'fake-push-'));
  const certPath = join(certDir, 'ca.pem');
  writeFileSync(certPath, cert);
  const service = options.service ?? 'generic';
  const bodyLimit = service === 'wns' ? WNS_MAX_BODY_BYTES : MAX_BODY_BYTES;

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

  /** The service's own header rules, beyond RFC 8030's. */
  const checkServiceHeaders = (request: Request, ttl: number) => {
    if (service === 'mozilla' && ttl > MOZILLA_MAX_TTL_SECONDS)
      throw new ProtocolViolation(`TTL ${ttl} over ${MOZILLA_MAX_TTL_SECONDS}`, 400, undefined, 'ttl');
    if (service === 'wns' && ttl === 0 && request.headers['x-wns-cache-policy'] !== 'no-cache')
      throw new ProtocolViolation('Ttl value conflicts with X-WNS-Cache-Policy.', 400, undefined, 'request');
  };

  type Request = IncomingMessage | Http2ServerRequest;
  type Response = ServerResponse | Http2ServerResponse;
  const handle = async (request: Request, response: Response) => {
    const id = /^\/push\/([A-Za-z0-9_-]+)$/.exec(request.url ?? '')?.[1] ?? null;
    const state = id === null ? undefined : subscriptions.get(id);
    try {
      if (request.method !== 'POST') throw new ProtocolViolation(`method ${request.method} is not POST`, 405);
      const body = await readBody(request, bodyLimit);
      if (!state) {
        // A push service does not know the endpoint: not the sender's fault, so not a protocol error.
        const gone = scriptedAnswer(service, { status: 404 }, origin);
        response.writeHead(gone.status, gone.headers).end(gone.body);
        return;
      }
      const headers = checkPushHeaders(request);
      checkServiceHeaders(request, headers.ttl);
      let vapid: ReturnType<typeof verifyVapid>;
      try {
        vapid = verifyVapid(request.headers.authorization, origin, Math.floor(Date.now() / 1000));
      } catch (error) {
        if (error instanceof ProtocolViolation) error.kind = 'vapid';
        throw error;
      }
      if (service === 'apple' && isUnreachableSubject(vapid.claims.sub))
        throw new ProtocolViolation(`JWT sub ${vapid.claims.sub} is not reachable`, 403, 'BadJwtToken', 'vapid');
      if (state.applicationServerKey !== null && vapid.k !== state.applicationServerKey)
        throw new ProtocolViolation(
          'signed with another VAPID key than the subscription was made with',
          service === 'apple' ? 400 : 403,
          'VapidPkHashMismatch',
          'key-mismatch',
        );
      let payload: string;
      try {
        payload = decryptPushMessage(body, state);
      } catch (error) {
        if (error instanceof ProtocolViolation) error.kind = 'encryption';
        throw error;
      }
      const reply = nextReply(state);
      const answer = scriptedAnswer(service, reply, origin);
      const requestHeaders: Record<string, string> = {};
      for (const [name, value] of Object.entries(request.headers)) {
        if (typeof value === 'string' && name !== 'authorization' && !name.startsWith(':'))
          requestHeaders[name] = value;
      }
      const message: ReceivedPush = {
        subscriptionId: state.subscription.id,
        payload,
        ...headers,
        claims: vapid.claims,
        jwt: vapid.jwt,
        vapidPublicKey: vapid.k,
        status: answer.status,
        connection: (request.socket as unknown as { [CONNECTION_ID]?: number })[CONNECTION_ID] ?? 0,
        httpVersion: request.httpVersion,
        at: Date.now(),
        headers: requestHeaders,
      };
      if (state.offline && answer.status >= 200 && answer.status < 300) {
        // RFC 8030 §5.2: TTL 0 is not kept for an offline browser; §5.4: a newer message with the
        // same Topic replaces the one held (autopush http.html, "Message Topics").
        if (headers.ttl === 0) message.dropped = true;
        else {
          message.pending = true;
          if (headers.topic !== null) {
            for (const held of received) {
              if (held.subscriptionId === message.subscriptionId && held.pending && held.topic === headers.topic) {
                held.pending = false;
                held.replaced = true;
              }
            }
          }
        }
      }
      received.push(message);
      for (const wake of waiters) wake();
      if (reply.delayMs) await pause(reply.delayMs);
      if (response.destroyed) return;
      response.writeHead(answer.status, answer.headers).end(answer.body);
    } catch (error) {
      if (!(error instanceof ProtocolViolation)) throw error;
      protocolErrors.push({ subscriptionId: state?.subscription.id ?? id, reason: error.message });
      if (response.destroyed) return;
      const answer = refusal(service, error);
      response.writeHead(answer.status, answer.headers).end(answer.body);
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
  origin = options.publicHost ? `https://${options.publicHost}` : `https://localhost:${port}`;

  return {
    origin,
    port,
    hostRule: options.publicHost ? `${options.publicHost}:443` : `localhost:${port}`,
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
        offline: false,
      });
      return subscription;
    },
    script(subscriptionId, ...replies) {
      const state = subscriptions.get(subscriptionId);
      if (!state) throw new Error(`no subscription ${subscriptionId} on this stand-in`);
      state.replies.push(...replies);
    },
    setOnline(subscriptionId, online) {
      const state = subscriptions.get(subscriptionId);
      if (!state) throw new Error(`no subscription ${subscriptionId} on this stand-in`);
      state.offline = !online;
      if (online) for (const message of received) if (message.subscriptionId === subscriptionId) delete message.pending;
    },
    deliveredTo(subscriptionId) {
      return received.filter(
        (m) =>
          m.subscriptionId === subscriptionId &&
          m.status >= 200 &&
          m.status < 300 &&
          !m.pending &&
          !m.replaced &&
          !m.dropped,
      );
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
