// The subpath, not the package: the package's index loads TypeBox, which the worker keeps out (startup.ts).
import { isAllowedPushHost, type PushHostRule } from '@webpush/config/push-hosts';
import { decodeSubscriptionKeys, encryptPayload, MAX_PLAINTEXT_BYTES } from './encryption.js';
import { isWnsOrigin } from './outcome.js';
import type { PushOptions, PushTarget, Urgency, VapidCredentials } from './types.js';
import { VapidKeyError, type VapidSigner } from './vapid.js';

export interface PushRequest {
  /** `https://host[:port]`, also the VAPID `aud`. */
  origin: string;
  path: string;
  headers: Record<string, string>;
  body: Buffer;
}

export type Refusal = { kind: 'failed'; reason: string };

const URGENCIES: ReadonlySet<Urgency> = new Set(['very-low', 'low', 'normal', 'high']);
const TOPIC = /^[A-Za-z0-9_-]{1,32}$/;

interface Destination {
  origin: string;
  path: string;
}

function destinationOf(endpoint: string, allowlist: readonly PushHostRule[]): Destination | null {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    return null;
  }
  if (url.protocol !== 'https:' || url.username !== '' || url.password !== '' || url.hostname === '') return null;
  const hostname = url.hostname.replace(/^\[|\]$/g, '');
  const port = url.port === '' ? 443 : Number(url.port);
  // Checked again here, not only at subscribe time: the sender is the last line against SSRF.
  if (!isAllowedPushHost(allowlist, hostname, port)) return null;
  return { origin: url.origin, path: `${url.pathname}${url.search}` };
}

/** Anything that makes a request pointless or unsafe comes back as a refusal before any connection is opened. */
export function buildPushRequest(
  target: PushTarget,
  payload: string,
  vapid: VapidCredentials,
  options: PushOptions,
  context: {
    allowlist: readonly PushHostRule[];
    signer: VapidSigner;
    body?: Buffer | undefined;
  },
): PushRequest | Refusal {
  const destination = destinationOf(target.endpoint, context.allowlist);
  if (!destination) return { kind: 'failed', reason: 'endpoint is not an https URL on the push-service allowlist' };
  const keys = decodeSubscriptionKeys(target);
  if (!keys) return { kind: 'failed', reason: 'subscription keys are malformed (p256dh 65-byte point, auth 16 bytes)' };
  if (!Number.isInteger(options.ttl) || options.ttl < 0)
    return { kind: 'failed', reason: 'ttl must be an integer ≥ 0' };
  if (!URGENCIES.has(options.urgency)) return { kind: 'failed', reason: `unknown urgency ${options.urgency}` };
  if (options.topic !== undefined && !TOPIC.test(options.topic)) {
    return { kind: 'failed', reason: 'topic must be 1–32 base64url characters' };
  }
  if (Buffer.byteLength(payload, 'utf8') > MAX_PLAINTEXT_BYTES) {
    return { kind: 'failed', reason: `payload over ${MAX_PLAINTEXT_BYTES} bytes` };
  }

  let body: Buffer;
  try {
    body = context.body ?? encryptPayload(payload, keys);
  } catch (error) {
    if (error instanceof RangeError) return { kind: 'failed', reason: error.message };
    throw error;
  }
  let authorization: string;
  try {
    authorization = context.signer.authorization(vapid, destination.origin);
  } catch (error) {
    if (error instanceof VapidKeyError) return { kind: 'failed', reason: error.message };
    throw error;
  }

  const headers: Record<string, string> = {
    Authorization: authorization,
    TTL: String(options.ttl),
    Urgency: options.urgency,
    'Content-Encoding': 'aes128gcm',
    'Content-Type': 'application/octet-stream',
    'Content-Length': String(body.length),
  };
  if (options.topic !== undefined) headers.Topic = options.topic;
  // WNS caches a message for an offline device by default, and refuses `TTL: 0` unless told not to
  // cache it: "400 Ttl value conflicts with X-WNS-Cache-Policy" (web-push-libs/pywebpush#162;
  // X-WNS-Cache-Policy in "Push notification service request and response headers",
  // https://learn.microsoft.com/windows/apps/design/shell/tiles-and-notifications/push-request-response-headers).
  if (isWnsOrigin(destination.origin)) headers['X-WNS-Cache-Policy'] = options.ttl === 0 ? 'no-cache' : 'cache';
  return { ...destination, headers, body };
}
