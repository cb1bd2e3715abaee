import type { ClientHttp2Session } from 'node:http2';
import { rootCertificates } from 'node:tls';
import { Agent, type Dispatcher, EnvHttpProxyAgent, type ProxyAgent } from 'undici';
import { Http2Origins } from './h2-origins.js';
import { type AnswerHeaders, outcomeForAnswer } from './outcome.js';
import { buildPushRequest, type PushRequest } from './push-request.js';
import type { PushOutcome, PushSender, PushSenderOptions } from './types.js';
import { VapidSigner } from './vapid.js';

const DEFAULT_TIMEOUT_MS = 10_000;
const DEFAULT_MAX_SOCKETS_PER_ORIGIN = 64;
/**
 * Idle pooled connections are kept this long unless the push service's Keep-Alive says less: short
 * enough that a service closing idle connections quietly rarely races a new POST (a lost race is
 * a retry, since POST is not replayed).
 */
const KEEP_ALIVE_MS = 30_000;
/** undici's own timeouts only back up the whole-request deadline, which names the failure better. */
const BACKSTOP_MS = 1_000;
const DETAIL_BYTES = 200;

function networkReason(error: unknown): string {
  if (!(error instanceof Error)) return `network error: ${String(error)}`;
  // undici wraps socket errors; the code of the cause (ECONNREFUSED, CERT_…) says the most.
  const cause = error.cause instanceof Error ? error.cause : undefined;
  const code = (cause as NodeJS.ErrnoException | undefined)?.code ?? (error as NodeJS.ErrnoException).code;
  return `network error: ${code ?? error.message}`;
}

/** The first bytes of an error answer, on one line, for logs (FCM and Mozilla explain refusals there). */
async function detailOf(body: AsyncIterable<Buffer> & { dump(): Promise<void> }): Promise<string> {
  const chunks: Buffer[] = [];
  let kept = 0;
  for await (const chunk of body) {
    chunks.push(chunk);
    kept += chunk.length;
    if (kept >= DETAIL_BYTES) break; // leaving the loop destroys the body: the rest is not wanted
  }
  return Buffer.concat(chunks).subarray(0, DETAIL_BYTES).toString('utf8').replace(/\s+/g, ' ').trim();
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

export function answerHeaders(headers: Record<string, string | string[] | undefined>): AnswerHeaders {
  return {
    retryAfter: headerValue(headers['retry-after']),
    wnsStatus: headerValue(headers['x-wns-status']),
    wnsContinueAfter: headerValue(headers['x-wns-continue-after']),
    wnsErrorDescription: headerValue(headers['x-wns-error-description']),
  };
}

/** An HTTP/1.1 pool through the proxy (CONNECT tunnels), with the settings given rather than process.env's. */
function proxiedAgent(
  proxy: NonNullable<PushSenderOptions['proxy']>,
  pool: Agent.Options,
  tls: { timeout: number; ca: readonly (string | Buffer)[] | undefined },
): Dispatcher {
  // undici hands these options on to its ProxyAgent, which takes `requestTls` (its types omit it).
  const settings: EnvHttpProxyAgent.Options & Pick<ProxyAgent.Options, 'requestTls'> = {
    ...pool,
    // '' rather than absent: undici would read process.env instead.
    httpProxy: proxy.httpProxy ?? '',
    httpsProxy: proxy.httpsProxy ?? '',
    noProxy: proxy.noProxy,
    requestTls: { timeout: tls.timeout, ...(tls.ca ? { ca: [...tls.ca] } : {}) },
  };
  return new EnvHttpProxyAgent(settings);
}

/**
 * The web push sender. One undici Agent keeps a pool of keep-alive connections per push-service
 * origin, so a fan-out reuses a few TLS connections instead of paying a handshake each; undici
 * rather than node:https because it costs less CPU a request (docs/performance.md), and an https
 * Agent given `ca` re-serialises the whole CA list into its pool key on every request. Push services
 * that offer HTTP/2 (FCM, Mozilla autopush and Apple's all do) get one multiplexed connection per
 * origin instead (`Http2Origins`).
 */
export function createPushSender(options: PushSenderOptions): PushSender {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const extraCa = options.ca === undefined ? [] : Array.isArray(options.ca) ? options.ca : [options.ca];
  // `ca` replaces the root store, so Node's roots go along with the extra certificate.
  const ca = extraCa.length > 0 ? [...rootCertificates, ...extraCa] : undefined;
  const maxSockets = options.maxSocketsPerOrigin ?? DEFAULT_MAX_SOCKETS_PER_ORIGIN;
  const common = {
    keepAliveTimeout: KEEP_ALIVE_MS,
    headersTimeout: timeoutMs + BACKSTOP_MS,
    bodyTimeout: timeoutMs + BACKSTOP_MS,
    connect: { timeout: timeoutMs + BACKSTOP_MS, ...(ca ? { ca } : {}) },
  };
  const h1 = options.proxy
    ? proxiedAgent(
        options.proxy,
        { ...common, connections: maxSockets, pipelining: 1 },
        { timeout: timeoutMs + BACKSTOP_MS, ca },
      )
    : new Agent({ ...common, connections: maxSockets, pipelining: 1 });
  const h2 =
    options.http2 !== true || options.proxy
      ? null
      : new Http2Origins({ ca, connectTimeoutMs: timeoutMs + BACKSTOP_MS, idleTimeoutMs: KEEP_ALIVE_MS });
  const signer = new VapidSigner();
  const inFlight = new Set<Promise<PushOutcome>>();
  let closed = false;

  const postH2 = async (session: ClientHttp2Session, prepared: PushRequest): Promise<PushOutcome> => {
    if (!h2) throw new Error('unreachable');
    try {
      const { status, headers, detail } = await h2.request(session, prepared, timeoutMs);
      return outcomeForAnswer(status, headers, detail, prepared.origin);
    } catch (error) {
      if (error instanceof Error && error.message.startsWith('no answer within')) {
        return { kind: 'retry', reason: error.message };
      }
      return { kind: 'retry', reason: networkReason(error) };
    }
  };

  const post = async (prepared: PushRequest): Promise<PushOutcome> => {
    if (h2) {
      let session: ClientHttp2Session | null;
      try {
        const known = h2.session(prepared.origin);
        session = known instanceof Promise ? await known : known;
      } catch (error) {
        return { kind: 'retry', reason: networkReason(error) };
      }
      if (session) return postH2(session, prepared);
    }
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(), timeoutMs);
    try {
      const response = await h1.request({
        origin: prepared.origin,
        path: prepared.path,
        method: 'POST',
        headers: prepared.headers,
        body: prepared.body,
        signal: deadline.signal,
      });
      const status = response.statusCode;
      const headers = answerHeaders(response.headers);
      if (status >= 200 && status < 300) {
        await response.body.dump(); // drain, so the connection goes back to the pool
        // undici frees the connection one turn of the event loop after the body ends; without this
        // yield the caller's next send finds it busy and opens another.
        await new Promise((resolve) => setImmediate(resolve));
        return outcomeForAnswer(status, headers, '');
      }
      const detail = await detailOf(response.body).catch(() => '');
      return outcomeForAnswer(status, headers, detail, prepared.origin);
    } catch (error) {
      if (deadline.signal.aborted) return { kind: 'retry', reason: `no answer within ${timeoutMs} ms` };
      return { kind: 'retry', reason: networkReason(error) };
    } finally {
      clearTimeout(timer);
    }
  };

  return {
    async send(target, payload, vapid, sendOptions, body) {
      if (closed) return { kind: 'retry', reason: 'push sender is closed' };
      const prepared = buildPushRequest(target, payload, vapid, sendOptions, {
        allowlist: options.allowlist,
        signer,
        body,
      });
      if ('kind' in prepared) return prepared;
      const pending = post(prepared);
      inFlight.add(pending);
      try {
        return await pending;
      } finally {
        inFlight.delete(pending);
      }
    },
    async close() {
      closed = true;
      await Promise.allSettled([...inFlight]);
      await Promise.all([h1.close(), h2?.close()]);
    },
  };
}
