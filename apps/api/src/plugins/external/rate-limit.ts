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
      /** GET /auth/github/callback: RATE_LIMIT_LOGIN_MAX, its own counter (a sign-in is a start and a callback). */
      oauthCallback: onRequestAsyncHookHandler;
    };
  }
}

/**
 * SPEC §8 rate limits on the Redis store, so every API instance counts together. Each limiter is
 * made once and attached to routes explicitly: the login limiter serves both POST /auth/login and
 * GET /auth/github, which is how they share one counter.
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

    app.decorate('limiters', {
      apiKey: limiter('api-key', limits.apiKeyMax),
      login: limiter('login', limits.loginMax),
      register: limiter('register', limits.registerMax),
      oauthCallback: limiter('oauth-callback', limits.loginMax),
    });
  },
  { name: 'limiters', dependencies: ['config', 'redis'] },
);
