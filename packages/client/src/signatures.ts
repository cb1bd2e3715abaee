import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The `uidSignature` of `POST /subscribe` with a `subscribe_only` key: lowercase hex
 * HMAC-SHA-256 of the uid under the app's identity secret (the whole `wis_…` string is the key).
 * Compute it on your server and hand it to the page with the uid; never ship the secret.
 */
export function signUid(uid: string, identitySecret: string): string {
  return createHmac('sha256', identitySecret).update(uid, 'utf8').digest('hex');
}

export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';
}

/** What every webhook carries (Standard Webhooks body): see docs/webhooks.md for each `type`'s `data`. */
export interface WebhookEvent {
  type: 'notification.completed' | 'notification.failed' | 'subscription.expired' | (string & {});
  timestamp: string;
  data: Record<string, unknown>;
}

type HeaderSource = Headers | Record<string, string | string[] | undefined>;

function header(headers: HeaderSource, name: string): string {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? '';
  const record = headers as Record<string, string | string[] | undefined>;
  const key = Object.keys(record).find((candidate) => candidate.toLowerCase() === name);
  const value = key === undefined ? undefined : record[key];
  return Array.isArray(value) ? (value[0] ?? '') : (value ?? '');
}

export interface VerifyWebhookOptions {
  /** Largest distance between `webhook-timestamp` and now, in seconds (default 300, as Standard Webhooks). */
  toleranceSeconds?: number;
  /** The current time in ms (tests). */
  now?: number;
}

/**
 * Checks a webhook delivery by the Standard Webhooks specification and returns its parsed body:
 * `webhook-signature` holds `v1,<base64 HMAC-SHA-256 of "id.timestamp.body">` under the
 * base64-decoded part of `whsec_…`, and `webhook-timestamp` is within the tolerance (replays of an
 * old delivery fail). Pass the body exactly as received (a string or bytes), before any JSON parsing.
 * Throws WebhookVerificationError when anything does not match.
 */
export function verifyWebhook(
  headers: HeaderSource,
  body: string | Uint8Array,
  secret: string,
  { toleranceSeconds = 300, now = Date.now() }: VerifyWebhookOptions = {},
): WebhookEvent {
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  if (!id || !timestamp || !signatures) throw new WebhookVerificationError('missing webhook headers');
  if (!/^\d+$/.test(timestamp)) throw new WebhookVerificationError('invalid webhook-timestamp');
  if (Math.abs(now / 1000 - Number(timestamp)) > toleranceSeconds)
    throw new WebhookVerificationError('webhook-timestamp is too old or too new');

  const key = Buffer.from(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret, 'base64');
  const text = typeof body === 'string' ? body : Buffer.from(body).toString('utf8');
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.${text}`).digest();
  const matches = signatures.split(' ').some((entry) => {
    const [version, signature] = entry.split(',', 2);
    if (version !== 'v1' || !signature) return false;
    const given = Buffer.from(signature, 'base64');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
  if (!matches) throw new WebhookVerificationError('no matching signature');
  try {
    return JSON.parse(text) as WebhookEvent;
  } catch {
    throw new WebhookVerificationError('the body is not JSON');
  }
}
