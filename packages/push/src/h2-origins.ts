import { type ClientHttp2Session, connect as connectHttp2, constants, type OutgoingHttpHeaders } from 'node:http2';
import { connect as connectTls } from 'node:tls';
import type { AnswerHeaders } from './outcome.js';

export interface Http2Answer {
  status: number;
  headers: AnswerHeaders;
  detail: string;
}

export interface Http2Request {
  origin: string;
  path: string;
  headers: Record<string, string>;
  body: Buffer;
}

const DETAIL_BYTES = 200;

type OriginState =
  | { kind: 'h1' }
  | { kind: 'h2'; session: ClientHttp2Session }
  | { kind: 'connecting'; ready: Promise<ClientHttp2Session | null> };

/**
 * HTTP/2 sessions to the push services that offer it, one multiplexed connection per origin, on
 * node:http2 rather than undici's `allowH2`, whose HTTP/2 client trips an internal assertion under
 * concurrency and whose pool cannot fall back to HTTP/1.1 per origin. An origin that picks HTTP/1.1
 * by ALPN is remembered as such, and `session()` answers null for it from then on, so the caller
 * uses its HTTP/1.1 keep-alive pool.
 */
export class Http2Origins {
  readonly #origins = new Map<string, OriginState>();
  #closed = false;

  constructor(
    private readonly options: {
      ca: readonly (string | Buffer)[] | undefined;
      connectTimeoutMs: number;
      idleTimeoutMs: number;
    },
  ) {}

  session(origin: string): Promise<ClientHttp2Session | null> | ClientHttp2Session | null {
    const state = this.#origins.get(origin);
    if (state?.kind === 'h1') return null;
    if (state?.kind === 'h2' && !state.session.closed && !state.session.destroyed) return state.session;
    if (state?.kind === 'connecting') return state.ready;
    const ready = this.#connect(origin);
    this.#origins.set(origin, { kind: 'connecting', ready });
    return ready;
  }

  #connect(origin: string): Promise<ClientHttp2Session | null> {
    const url = new URL(origin);
    const host = url.hostname.replace(/^\[|\]$/g, '');
    return new Promise((resolve, reject) => {
      const socket = connectTls({
        host,
        port: url.port === '' ? 443 : Number(url.port),
        ...(/^[\d.]+$|:/.test(host) ? {} : { servername: host }),
        ALPNProtocols: ['h2', 'http/1.1'],
        ...(this.options.ca ? { ca: [...this.options.ca] } : {}),
      });
      const fail = (error: Error) => {
        this.#origins.delete(origin);
        socket.destroy();
        reject(error);
      };
      socket.setTimeout(this.options.connectTimeoutMs, () => fail(new Error('connect timeout')));
      socket.once('error', fail);
      socket.once('secureConnect', () => {
        socket.setTimeout(0);
        socket.off('error', fail);
        if (socket.alpnProtocol !== 'h2' || this.#closed) {
          socket.destroy();
          if (this.#closed) this.#origins.delete(origin);
          else this.#origins.set(origin, { kind: 'h1' });
          resolve(null);
          return;
        }
        const session = connectHttp2(origin, { createConnection: () => socket });
        const forget = () => {
          const current = this.#origins.get(origin);
          if (current?.kind === 'h2' && current.session === session) this.#origins.delete(origin);
        };
        // Errors reach the streams under way; the session is replaced on the next request.
        session.on('error', forget);
        session.on('goaway', forget);
        session.on('close', forget);
        session.setTimeout(this.options.idleTimeoutMs, () => session.close());
        this.#origins.set(origin, { kind: 'h2', session });
        resolve(session);
      });
    });
  }

  request(session: ClientHttp2Session, request: Http2Request, timeoutMs: number): Promise<Http2Answer> {
    return new Promise((resolve, reject) => {
      const headers: OutgoingHttpHeaders = { ':method': 'POST', ':path': request.path };
      for (const name in request.headers) headers[name.toLowerCase()] = request.headers[name];
      const stream = session.request(headers, { endStream: false });
      let status = 0;
      let answerHeaders: AnswerHeaders = {};
      const detail: Buffer[] = [];
      let kept = 0;
      const timer = setTimeout(() => {
        stream.close(constants.NGHTTP2_CANCEL);
        reject(new Error(`no answer within ${timeoutMs} ms`));
      }, timeoutMs);
      stream.on('response', (answer) => {
        status = Number(answer[':status']);
        const value = (name: string) => {
          const header = answer[name];
          return Array.isArray(header) ? header[0] : header;
        };
        answerHeaders = {
          retryAfter: value('retry-after'),
          wnsStatus: value('x-wns-status'),
          wnsContinueAfter: value('x-wns-continue-after'),
          wnsErrorDescription: value('x-wns-error-description'),
        };
      });
      stream.on('data', (chunk: Buffer) => {
        if (status >= 200 && status < 300) return;
        if (kept < DETAIL_BYTES) {
          detail.push(chunk);
          kept += chunk.length;
        }
      });
      stream.once('end', () => {
        clearTimeout(timer);
        resolve({
          status,
          headers: answerHeaders,
          detail: Buffer.concat(detail).subarray(0, DETAIL_BYTES).toString('utf8').replace(/\s+/g, ' ').trim(),
        });
      });
      stream.once('error', (error) => {
        clearTimeout(timer);
        reject(error);
      });
      // Reset by the server or the session went away: no-op once 'end' has resolved.
      stream.once('close', () => {
        clearTimeout(timer);
        reject(new Error(`stream closed (code ${stream.rstCode ?? 0})`));
      });
      stream.end(request.body);
    });
  }

  async close(): Promise<void> {
    this.#closed = true;
    const closing: Promise<void>[] = [];
    for (const state of this.#origins.values()) {
      if (state.kind !== 'h2') continue;
      closing.push(new Promise((resolve) => state.session.close(() => resolve())));
    }
    this.#origins.clear();
    await Promise.all(closing);
  }
}
