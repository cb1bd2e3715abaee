import rateLimit from '@fastify/rate-limit';
import { AppError } from '@webpush/errors';
import type { FastifyInstance, FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import fp from 'fastify-plugin';

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
  }
}

/**
 * SPEC §8 rate limits on the Redis store, so every API instance counts together. Each limiter is
 * made once and attached to routes explicitly: the login limiter serves both POST /auth/login and
 * GET /auth/github, which is how they share one counter; it also guards the routes that redeem an
 * e-mailed token (verify-email, password-reset/confirm).
 */
export default fp(
  async (app: FastifyInstance) => {
    const { rateLimit: limits, redisKeyPrefix } = app.config;
    const windowMs = limits.windowSeconds * 1000;

    await app.register(rateLimit, {
      global: false,
      redis: app.redis,
      nameSpace: `${redisKeyPrefix}:rate-limit:`,
      skipOnError: true, // a Redis outage must not take the API down with it; it is logged by the redis plugin
      // One round trip a request: the store's Lua script (INCR + PEXPIRE/PTTL) runs as a single
      // EVALSHA; the x-ratelimit-* headers come from its answer, with no second read.
      addHeaders: {
        'x-ratelimit-limit': true,
        'x-ratelimit-remaining': true,
        'x-ratelimit-reset': true,
        'retry-after': false,
      },
      errorResponseBuilder: () =>
        new AppError('RATE_LIMITED', { headers: { 'Retry-After': String(limits.windowSeconds) } }),
    });

    const limiter = (name: string, max: number) =>
      app.rateLimit({
        max,
        timeWindow: windowMs,
        keyGenerator: (request: FastifyRequest) => `${name}:${request.ip}`,
      }) as onRequestAsyncHookHandler;

    // The API-key routes' budget, counted per user rather than per IP: a session names its user, and
    // the people behind one office IP should not share one dashboard's sends.
    const sessionSend = app.rateLimit({
      max: limits.apiKeyMax,
      timeWindow: windowMs,
      keyGenerator: (request: FastifyRequest) =>
        request.principal?.kind === 'session'
          ? `session-send:${request.principal.user.id}`
          : `session-send:${request.ip}`,
    }) as onRequestAsyncHookHandler;

    app.decorate('limiters', {
      apiKey: limiter('api-key', limits.apiKeyMax),
      login: limiter('login', limits.loginMax),
      register: limiter('register', limits.registerMax),
      sessionSend,
      // Each request can put a message in someone's mailbox: as strict as registering, its own counter.
      mail: limiter('mail', limits.registerMax),
      oauthCallback: limiter('oauth-callback', limits.loginMax),
    });
  },
  { name: 'limiters', dependencies: ['config', 'redis'] },
);
