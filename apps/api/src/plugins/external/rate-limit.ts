import rateLimit, { normalizeIP } from '@fastify/rate-limit';
import { AppError } from '@webpush/errors';
import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import fp from 'fastify-plugin';
import type { CounterBatch } from '../../coordination/coordination.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** Limiters shared by name: routes that use the same one share its counter (per client IP). */
    limiters: {
      apiKey: onRequestAsyncHookHandler;
      login: onRequestAsyncHookHandler;
      register: onRequestAsyncHookHandler;
      /** Sends from a session (the dashboard): per signed-in user; attach it after `authenticate`. */
      sessionSend: onRequestAsyncHookHandler;
      /** Routes that send an e-mail on request (password reset, verification resend): one counter. */
      mail: onRequestAsyncHookHandler;
      /** GET /auth/github/callback: RATE_LIMIT_LOGIN_MAX, its own counter (a sign-in is a start and a callback). */
      oauthCallback: onRequestAsyncHookHandler;
    };
    /**
     * The `apiKey` limiter's budget, for a route that counts its request in one script with the rest
     * of its Redis work (POST /events) instead of in its own round trip before the route runs.
     */
    apiKeyBudget: {
      /** The Redis key that counts this client's API-key requests: the `apiKey` limiter's own counter. */
      key(request: FastifyRequest): string;
      readonly max: number;
      readonly windowMs: number;
      /** Sets the rate-limit headers of a count; throws RATE_LIMITED when it is over the limit. */
      settle(reply: FastifyReply, count: { current: number; ttl: number }): void;
      /** Counts the request on its own, for one that ended before its script ran (an error). */
      count(request: FastifyRequest, reply: FastifyReply): Promise<void>;
    };
    /**
     * Counts one write of a signed-in user (RATE_LIMIT_SESSION_WRITE_MAX per window); throws
     * RATE_LIMITED over it. Called by `authenticate` for every unsafe method a session makes.
     */
    countSessionWrite(request: FastifyRequest, userId: string): Promise<void>;
    /**
     * Failed sign-ins per account, from every IP together (a slow password spray): `guard` throws
     * RATE_LIMITED once the e-mail has RATE_LIMIT_LOGIN_ACCOUNT_MAX failures in the window (503 when
     * Redis cannot count: sign-in fails closed), `failed` counts one. Keyed by the keyed hash of the
     * e-mail, known or not, so the answer tells nothing about whether the account exists.
     */
    loginFailures: {
      guard(email: string): Promise<void>;
      failed(email: string): Promise<void>;
    };
    /**
     * Whether another e-mail of `purpose` may go to `address` now (RATE_LIMIT_MAIL_PER_ADDRESS_MAX per
     * window), counting this one. False also when Redis cannot count: mail fails closed.
     */
    mayMailAddress(purpose: string, address: string): Promise<boolean>;
    /**
     * Counts one use of the budget `name` (at most `max` per `windowMs`, all instances together):
     * true within it, false over it, null when Redis cannot count (the caller decides which way to fail).
     */
    withinBudget(name: string, max: number, windowMs: number): Promise<boolean | null>;
  }
}

/** The user a session or personal access token signs in, whose budgets it spends. */
const signedInUserId = (request: FastifyRequest): string | null =>
  request.principal?.kind === 'session' || request.principal?.kind === 'accessToken' ? request.principal.user.id : null;

interface StoreParams {
  continueExceeding?: boolean;
  exponentialBackoff?: boolean;
}

/**
 * @fastify/rate-limit's store interface over `batch`: the keys, the counting and the answers of the
 * library's Redis store (whose key naming `apiKeyBudget.key` relies on), its increments batched.
 */
function batchedStore(batch: CounterBatch, nameSpace: string) {
  return class BatchedRedisStore {
    constructor(
      readonly params: StoreParams,
      private readonly key = nameSpace,
    ) {
      if (params.continueExceeding || params.exponentialBackoff) {
        throw new Error('the batched rate-limit store counts fixed windows only');
      }
    }

    incr(
      key: string,
      callback: (error: Error | null, count?: { current: number; ttl: number }) => void,
      timeWindow: number,
      max: number,
    ) {
      batch.increment({ key: this.key + key, windowMs: timeWindow, max }).then(
        (count) => callback(null, count),
        (error: unknown) => callback(error instanceof Error ? error : new Error(String(error))),
      );
    }

    // The library passes the limiter's merged options, with `routeInfo` (its typings say RouteOptions).
    child(routeOptions: object) {
      const params = routeOptions as StoreParams & { routeInfo?: { method?: string; url?: string } };
      return new BatchedRedisStore(params, `${this.key}${params.routeInfo?.method}${params.routeInfo?.url}-`);
    }
  };
}

/**
 * The rate limits of docs/configuration.md on the Redis store, so every API instance counts together. Each limiter is
 * made once and attached to routes explicitly: the login limiter serves both POST /auth/login and
 * GET /auth/github, which is how they share one counter; it also guards the routes that redeem an
 * e-mailed token (verify-email, password-reset/confirm).
 */
export default fp(
  async (app: FastifyInstance) => {
    const { rateLimit: limits, redisKeyPrefix } = app.config;
    const windowMs = limits.windowSeconds * 1000;

    const nameSpace = `${redisKeyPrefix}:rate-limit:`;
    const { counterBatch, rateLimitRedis } = app.coordination;
    await app.register(rateLimit, {
      global: false,
      ...(counterBatch === null
        ? { redis: rateLimitRedis, nameSpace }
        : { store: batchedStore(counterBatch, nameSpace) }),
      skipOnError: true, // a Redis outage must not take the API down with it; it is logged by the coordination plugin
      // One round trip a request at most: the store's Lua script (INCR + PEXPIRE/PTTL) runs as a
      // single EVALSHA, shared by the requests of one event-loop turn on a single Redis
      // (coordination/redis-counter-batch.ts), or in this process's memory (coordination/in-process.ts);
      // the x-ratelimit-* headers come from its answer, with no second read.
      addHeaders: {
        'x-ratelimit-limit': true,
        'x-ratelimit-remaining': true,
        'x-ratelimit-reset': true,
        'retry-after': false,
      },
      errorResponseBuilder: () =>
        new AppError('RATE_LIMITED', { headers: { 'Retry-After': String(limits.windowSeconds) } }),
    });

    // An IPv6 client holds a whole network (a /64 per line): count the network, not each address.
    const client = (request: FastifyRequest) => normalizeIP(request.ip, limits.ipv6Prefix);

    /**
     * `failClosed`: when Redis cannot count, refuse (503 RATE_LIMITED, Retry-After) instead of letting
     * the request through. Only for the routes where an uncounted request is itself the harm:
     * password guessing (login) and mail to someone's inbox (register, reset, resend).
     */
    const limiter = (name: string, max: number, failClosed = false): onRequestAsyncHookHandler => {
      const hook = app.rateLimit({
        max,
        timeWindow: windowMs,
        skipOnError: !failClosed,
        keyGenerator: (request: FastifyRequest) => `${name}:${client(request)}`,
      }) as onRequestAsyncHookHandler;
      if (!failClosed) return hook;
      return async function failingClosed(this: FastifyInstance, request, reply) {
        try {
          await hook.call(this, request, reply);
        } catch (error) {
          if (error instanceof AppError) throw error;
          request.log.error({ err: error }, `rate limit "${name}" cannot be counted: refusing the request`);
          throw new AppError('RATE_LIMITED', {
            status: 503,
            detail: 'LIMIT_NOT_COUNTABLE',
            headers: { 'Retry-After': String(limits.windowSeconds) },
            cause: error,
          });
        }
      };
    };

    // The API-key routes' budget, counted per user rather than per IP: a session names its user, and
    // the people behind one office IP should not share one dashboard's sends.
    const sessionSend = app.rateLimit({
      max: limits.apiKeyMax,
      timeWindow: windowMs,
      keyGenerator: (request: FastifyRequest) => `session-send:${signedInUserId(request) ?? client(request)}`,
    }) as onRequestAsyncHookHandler;

    // Writes of a session, per user: the dashboard makes a handful a minute; this bounds a script
    // driving a stolen or scripted session. Fails open like the API-key routes.
    const sessionWrite = app.createRateLimit({
      max: limits.sessionWriteMax,
      timeWindow: windowMs,
      skipOnError: true,
      keyGenerator: (request: FastifyRequest) => `session-write:${signedInUserId(request) ?? client(request)}`,
    });
    app.decorate('countSessionWrite', async (request: FastifyRequest) => {
      const result = await sessionWrite(request);
      if (!result.isAllowed && result.isExceeded) {
        throw new AppError('RATE_LIMITED', { headers: { 'Retry-After': String(limits.windowSeconds) } });
      }
    });

    const withinBudget = async (name: string, max: number, windowMs: number): Promise<boolean | null> => {
      const key = `${redisKeyPrefix}:budget:${name}`;
      try {
        const count = await app.coordination.increment(key, windowMs);
        return Number.isFinite(count) ? count <= max : null;
      } catch (error) {
        app.log.error({ err: error, budget: name.split(':', 1)[0] }, 'a budget cannot be counted');
        return null;
      }
    };
    app.decorate('withinBudget', withinBudget);

    const mailWindowMs = limits.mailPerAddressWindowSeconds * 1000;
    app.decorate('mayMailAddress', async (purpose: string, address: string) => {
      // The address as a keyed hash: Redis holds no e-mail addresses. Uncountable: not sent.
      const name = `mail-to:${purpose}:${app.secrets.hash(address.toLowerCase())}`;
      return (await withinBudget(name, limits.mailPerAddressMax, mailWindowMs)) === true;
    });

    const rateLimited = () =>
      new AppError('RATE_LIMITED', { headers: { 'Retry-After': String(limits.windowSeconds) } });

    const loginFailureKey = (email: string) =>
      `${redisKeyPrefix}:login-failures:${app.secrets.hash(email.trim().toLowerCase())}`;
    const uncountable = (error: unknown) => {
      app.log.error({ err: error }, 'failed sign-ins cannot be counted: refusing the sign-in');
      return new AppError('RATE_LIMITED', {
        status: 503,
        detail: 'LIMIT_NOT_COUNTABLE',
        headers: { 'Retry-After': String(limits.windowSeconds) },
        cause: error,
      });
    };
    app.decorate('loginFailures', {
      guard: async (email: string) => {
        let reading: { count: number; ttlMs: number };
        try {
          reading = await app.coordination.read(loginFailureKey(email));
        } catch (error) {
          throw uncountable(error);
        }
        if (reading.count < limits.loginAccountMax) return;
        const ttl = reading.ttlMs;
        const retryAfter = ttl > 0 ? Math.ceil(ttl / 1000) : limits.loginAccountWindowSeconds;
        throw new AppError('RATE_LIMITED', { headers: { 'Retry-After': String(retryAfter) } });
      },
      failed: async (email: string) => {
        const key = loginFailureKey(email);
        try {
          await app.coordination.increment(key, limits.loginAccountWindowSeconds * 1000);
        } catch (error) {
          throw uncountable(error);
        }
      },
    });
    const settle = (reply: FastifyReply, { current, ttl }: { current: number; ttl: number }) => {
      const exceeded = current > limits.apiKeyMax;
      reply.header('x-ratelimit-limit', limits.apiKeyMax);
      reply.header('x-ratelimit-remaining', exceeded ? 0 : Math.max(0, limits.apiKeyMax - current));
      reply.header('x-ratelimit-reset', Math.ceil(ttl / 1000));
      if (exceeded) throw rateLimited();
    };
    const apiKeyCount = app.createRateLimit({
      max: limits.apiKeyMax,
      timeWindow: windowMs,
      skipOnError: true,
      keyGenerator: (request: FastifyRequest) => `api-key:${client(request)}`,
    });
    app.decorate('apiKeyBudget', {
      // @fastify/rate-limit names a limiter's counter `<nameSpace><method><url>-<key>`, and a limiter
      // made by `app.rateLimit()` has no route, hence `undefinedundefined-`. The events test proves
      // that /events and the other API-key routes spend one budget.
      key: (request: FastifyRequest) => `${redisKeyPrefix}:rate-limit:undefinedundefined-api-key:${client(request)}`,
      max: limits.apiKeyMax,
      windowMs,
      settle,
      count: async (request: FastifyRequest, reply: FastifyReply) => {
        const result = await apiKeyCount(request);
        if (result.isAllowed) return;
        settle(reply, {
          current: result.isExceeded ? limits.apiKeyMax + 1 : limits.apiKeyMax - result.remaining,
          ttl: result.ttl,
        });
      },
    });

    app.decorate('limiters', {
      apiKey: limiter('api-key', limits.apiKeyMax),
      login: limiter('login', limits.loginMax, true),
      register: limiter('register', limits.registerMax, true),
      sessionSend,
      // Each request can put a message in someone's mailbox: as strict as registering, its own counter.
      mail: limiter('mail', limits.registerMax, true),
      oauthCallback: limiter('oauth-callback', limits.loginMax),
    });
  },
  { name: 'limiters', dependencies: ['config', 'coordination', 'secrets'] },
);
