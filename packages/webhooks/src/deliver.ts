import type { LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import { rootCertificates } from 'node:tls';
import { Agent, type Dispatcher, ProxyAgent } from 'undici';
import { isPublicAddress, unbracket } from './address-policy.js';
import { createNameResolver, type NameResolver } from './resolver.js';
import { signWebhook } from './signature.js';
import { checkWebhookUrlSyntax, type TargetPolicy } from './target.js';

export interface WebhookClientOptions extends TargetPolicy {
  /** TCP + TLS set-up. */
  connectTimeoutMs: number;
  /** The whole attempt: connect, send, answer headers and the capped body. */
  totalTimeoutMs: number;
  /** Bytes of the answer read and kept for the deliveries list; the rest is never read. */
  responseCapBytes?: number;
  /** Extra trusted certificate (tests' local HTTPS receiver); processes use NODE_EXTRA_CA_CERTS. */
  ca?: string;
  /** Resolves receivers' names (default: c-ares on the system's name servers, 5 s per query). */
  resolve?: NameResolver;
  /**
   * Send through an HTTP proxy (HTTPS_PROXY / HTTP_PROXY / NO_PROXY, as pushes do): CONNECT tunnels
   * for https receivers, by the receiver's name, after that name was resolved here and found to have
   * a public address. null: receivers are reached directly.
   */
  proxy?: WebhookProxy | null;
}

export interface WebhookProxy {
  httpsProxy: string | null;
  httpProxy: string | null;
  /** Comma- or space-separated hosts reached directly: `example.com`, `.example.com`, `*.example.com`, `host:port`, `*`. */
  noProxy: string;
}

/**
 * Whether `NO_PROXY` sends `hostname:port` around the proxy, with undici's reading of it (the one
 * pushes go through): `*` for every host; an entry starting with `.` or `*.` matches names ending
 * with it; any other matches the name exactly; an entry's port, when it has one, must match too.
 */
export function bypassesProxy(hostname: string, port: number, noProxy: string): boolean {
  const name = hostname.toLowerCase();
  const entries = noProxy
    .split(/[,\s]/)
    .map((entry) => entry.trim().toLowerCase())
    .filter((entry) => entry !== '');
  if (entries.includes('*')) return true;
  return entries.some((entry) => {
    const match = /^(.+?)(?::(\d+))?$/.exec(entry);
    const host = match?.[1] ?? entry;
    if (match?.[2] !== undefined && Number(match[2]) !== port) return false;
    return /^[.*]/.test(host) ? name.endsWith(host.replace(/^\*/, '')) : name === host;
  });
}

/** The proxy a receiver's URL goes through, or null (no proxy set for its scheme, or NO_PROXY). */
export function proxyFor(url: URL, proxy: WebhookProxy | null | undefined): string | null {
  if (!proxy) return null;
  const uri = url.protocol === 'https:' ? (proxy.httpsProxy ?? proxy.httpProxy) : proxy.httpProxy;
  if (!uri) return null;
  const port = url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port);
  return bypassesProxy(unbracket(url.hostname), port, proxy.noProxy) ? null : uri;
}

export interface WebhookRequest {
  url: string;
  secret: string;
  /** `webhook-id`: the outbox row id, the same on every retry. */
  id: string;
  body: string;
}

export interface WebhookAttemptResult {
  /** Any 2xx. */
  ok: boolean;
  status: number | null;
  durationMs: number;
  /** The first `responseCapBytes` of the answer, as text. */
  response: string | null;
  /** Why no answer came: refused address, timeout, connection error. */
  error: string | null;
}

export const DEFAULT_RESPONSE_CAP_BYTES = 1_024;

export class RefusedAddressError extends Error {
  override readonly name = 'RefusedAddressError';
  readonly code = 'EREFUSEDADDRESS';
}

type LookupCallback = (error: Error | null, address: string | LookupAddress[], family?: number) => void;

/**
 * `lookup` for the TLS/TCP connection: resolves the name once (c-ares, with a timeout) and hands
 * the socket only public addresses, so the address checked is the address connected to (DNS
 * rebinding gets nothing).
 */
function checkedLookup(resolve: NameResolver) {
  return (hostname: string, options: { all?: boolean }, callback: LookupCallback): void => {
    resolve(hostname).then(
      (addresses) => {
        const usable = addresses.filter((entry) => isPublicAddress(entry.address));
        const first = usable[0];
        if (!first) return callback(new RefusedAddressError(`${hostname} resolves to no public address`), '');
        if (options.all) return callback(null, usable);
        return callback(null, first.address, first.family);
      },
      (error: Error) =>
        callback(
          'code' in error && error.code === 'EREFUSEDADDRESS'
            ? new RefusedAddressError(`${hostname} resolves to no public address`)
            : error,
          '',
        ),
    );
  };
}

/** PostgreSQL text cannot hold NUL; a receiver's answer may. */
const storable = (text: string) => text.replaceAll('\u0000', '\uFFFD');

function describe(error: unknown): string {
  if (!(error instanceof Error)) return 'request failed';
  // undici wraps the socket's error: the refused address is the cause.
  const cause = error.cause instanceof Error ? error.cause : null;
  const root = cause instanceof RefusedAddressError ? cause : error;
  const code = 'code' in root && typeof root.code === 'string' ? `${root.code}: ` : '';
  return storable(`${code}${root.message}`).slice(0, 500);
}

/**
 * Sends signed webhooks (Standard Webhooks headers) through undici. Hosts that are not exempt are
 * connected only through `checkedLookup` (IP literals are checked before connecting); redirects
 * are never followed (undici's `request` does not, and no redirect interceptor is installed); the
 * answer is read up to a small cap.
 */
export function createWebhookClient(options: WebhookClientOptions) {
  const cap = options.responseCapBytes ?? DEFAULT_RESPONSE_CAP_BYTES;
  const tls = options.ca === undefined ? {} : { ca: [...rootCertificates, options.ca] };
  const agentOptions = { connections: 4, keepAliveTimeout: 1_000 };
  const resolve = options.resolve ?? createNameResolver({ timeoutMs: options.connectTimeoutMs });
  const guarded = new Agent({
    ...agentOptions,
    connect: {
      timeout: options.connectTimeoutMs,
      lookup: checkedLookup(resolve),
      ...tls,
    },
  });
  const exemptAgent = new Agent({ ...agentOptions, connect: { timeout: options.connectTimeoutMs, ...tls } });
  // One pool per proxy URL (HTTPS_PROXY and HTTP_PROXY may differ), made on first use.
  const proxied = new Map<string, ProxyAgent>();
  const proxyAgent = (uri: string) => {
    let agent = proxied.get(uri);
    if (!agent) {
      // `requestTls`: the receiver's TLS inside the tunnel (certificate checked for its name).
      agent = new ProxyAgent({ ...agentOptions, uri, requestTls: { timeout: options.connectTimeoutMs, ...tls } });
      proxied.set(uri, agent);
    }
    return agent;
  };

  /**
   * Behind a proxy the proxy connects, not us, so the address rule is applied before it is asked:
   * the name is resolved here (c-ares, with its timeout) and every address it has must be public; then the
   * tunnel is asked for by that name. What remains trusted is the proxy's own resolution of the
   * name a moment later (docs/security.md, "Webhooks behind an outbound proxy").
   */
  const checkBeforeProxy = async (host: string): Promise<string | null> => {
    if (isIP(host) !== 0) return null; // an IP literal was checked with the URL
    try {
      const addresses = await resolve(host);
      // Every address, not one: the proxy picks among them itself, and may take a private one.
      if (addresses.length > 0 && addresses.every((entry) => isPublicAddress(entry.address))) return null;
      return describe(new RefusedAddressError(`${host} resolves to a non-public address`));
    } catch (error) {
      return describe(error);
    }
  };

  async function send(request: WebhookRequest): Promise<WebhookAttemptResult> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    const failure = (error: string): WebhookAttemptResult => ({
      ok: false,
      status: null,
      durationMs: elapsed(),
      response: null,
      error,
    });
    // The stored URL was checked at PUT, but the rules (or WEBHOOK_ALLOWED_HOSTS) may have changed.
    const target = checkWebhookUrlSyntax(request.url, options);
    if (!target.ok) return failure(`refused URL: ${target.reason}`);
    const host = unbracket(target.url.hostname);
    if (!target.exempt && isIP(host) !== 0 && !isPublicAddress(host)) return failure('refused URL: refused_address');

    let dispatcher: Dispatcher = target.exempt ? exemptAgent : guarded;
    const proxyUri = proxyFor(target.url, options.proxy);
    if (proxyUri !== null) {
      if (!target.exempt) {
        const refused = await checkBeforeProxy(host);
        if (refused !== null) return failure(refused);
      }
      dispatcher = proxyAgent(proxyUri);
    }

    const timestamp = Math.floor(Date.now() / 1000);
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(new Error('timed out')), options.totalTimeoutMs);
    try {
      const response = await dispatcher.request({
        origin: target.url.origin,
        path: `${target.url.pathname}${target.url.search}`,
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'user-agent': 'webpush-webhooks/1',
          'webhook-id': request.id,
          'webhook-timestamp': String(timestamp),
          'webhook-signature': signWebhook(request.secret, request.id, timestamp, request.body),
        },
        body: request.body,
        signal: deadline.signal,
      });
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of response.body) {
        const buffer = chunk as Buffer;
        chunks.push(buffer);
        size += buffer.length;
        if (size >= cap) break;
      }
      response.body.destroy();
      const status = response.statusCode;
      return {
        ok: status >= 200 && status < 300,
        status,
        durationMs: elapsed(),
        response: storable(Buffer.concat(chunks).subarray(0, cap).toString('utf8')),
        error: null,
      };
    } catch (error) {
      return failure(deadline.signal.aborted ? `timed out after ${options.totalTimeoutMs} ms` : describe(error));
    } finally {
      clearTimeout(timer);
    }
  }

  return {
    send,
    close: async () => {
      await Promise.all([guarded.close(), exemptAgent.close(), ...[...proxied.values()].map((agent) => agent.close())]);
    },
  };
}

export type WebhookClient = ReturnType<typeof createWebhookClient>;
