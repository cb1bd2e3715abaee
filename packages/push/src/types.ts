import type { PushHostRule } from '@webpush/config';

/** A browser push subscription as stored: keys are base64url (standard base64 is accepted too). */
export interface PushTarget {
  endpoint: string;
  p256dh: string;
  auth: string;
}

/**
 * An app's VAPID key pair in web-push's format (base64url raw keys: the 65-byte public point and
 * the 32-byte private scalar). `cacheKey` (the app id) names the imported key and its JWTs.
 */
export interface VapidCredentials {
  cacheKey: string;
  publicKey: string;
  privateKey: string;
  /** `mailto:` or `https:` contact the push service may use (RFC 8292 §2.1). */
  subject: string;
}

export type Urgency = 'very-low' | 'low' | 'normal' | 'high';

export interface PushOptions {
  /** Seconds the push service keeps an undelivered message (RFC 8030 §5.2). */
  ttl: number;
  urgency: Urgency;
  /** Replaces an undelivered message with the same topic: ≤ 32 base64url characters (RFC 8030 §5.4). */
  topic?: string;
}

export type PushOutcome =
  /** The push service accepted the message (any 2xx). */
  | { kind: 'sent'; status: number }
  /** 404 / 410: the subscription is gone and must not be sent to again. */
  | { kind: 'expired'; status: number }
  /** 429, 5xx, network error, timeout: try again later, after `retryAfterMs` when the service said so. */
  | { kind: 'retry'; status?: number; retryAfterMs?: number; reason: string }
  /** Any other 4xx (413 included), malformed keys, an endpoint off the allowlist: retrying cannot help. */
  | { kind: 'failed'; status?: number; reason: string };

export interface PushSender {
  /**
   * Sends one push. `body`, when given, is `payload` already encrypted for `target` (an
   * EncryptionPool's): the sender still checks everything else and signs, but does not encrypt.
   */
  send(
    target: PushTarget,
    payload: string,
    vapid: VapidCredentials,
    options: PushOptions,
    body?: Buffer,
  ): Promise<PushOutcome>;
  close(): Promise<void>;
}

export interface PushSenderOptions {
  /** Push-service hosts a request may go to (`PUSH_SERVICE_HOSTS`); any other endpoint is refused unsent. */
  allowlist: readonly PushHostRule[];
  timeoutMs?: number;
  maxSocketsPerOrigin?: number;
  /**
   * Use HTTP/2 with push services that offer it (ALPN `h2`, learnt on the first connection to each
   * origin): every request a stream of one connection (`PUSH_HTTP2`). Default false.
   */
  http2?: boolean;
  /**
   * Send through an HTTP proxy (CONNECT tunnels): `httpsProxy` for https push services, `httpProxy`
   * for the others and as the fallback, except hosts in `noProxy`. HTTP/2 is not used behind a proxy.
   */
  proxy?: { httpsProxy: string | null; httpProxy: string | null; noProxy: string } | null;
  /**
   * Test-only: extra CA certificates to trust on top of Node's root store, for a local stand-in
   * push service inside the test process. Processes use `NODE_EXTRA_CA_CERTS` instead.
   */
  ca?: string | Buffer | readonly (string | Buffer)[];
}
