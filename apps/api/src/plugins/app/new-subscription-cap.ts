import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

export interface CapDecision {
  admitted: boolean;
  /** Seconds until the current window ends (the `Retry-After` of a refusal). */
  retryAfterSeconds: number;
}

declare module 'fastify' {
  interface FastifyInstance {
    newSubscriptionCap: {
      /** False when the cap is off (the default): a subscribe then asks nothing of Redis. */
      readonly enabled: boolean;
      /** Counts one new subscription for `appId` in the current window; false once the window's cap is reached. */
      admit(appId: string): Promise<CapDecision>;
    };
  }
}

/**
 * A per-app cap on NEW subscriptions per window (`RATE_LIMIT_SUBSCRIBE_PER_APP_MAX` per
 * `RATE_LIMIT_WINDOW_SECONDS`), on top of the per-IP limit, so one app's public key cannot flood its
 * table from many addresses. A fixed-window counter in the coordination (Redis: every API instance
 * counts together).
 * Like the other limiters it lets requests through when Redis does not answer. Opt-in: 0, the
 * default, turns it off and costs no Redis command.
 */
export default fp(
  async (app: FastifyInstance) => {
    const { rateLimit, redisKeyPrefix } = app.config;
    const windowMs = rateLimit.windowSeconds * 1000;

    const admit = async (appId: string): Promise<CapDecision> => {
      // Off by default: a popular page must not lose the visitors of a busy minute.
      if (rateLimit.subscribePerAppMax === 0) return { admitted: true, retryAfterSeconds: 0 };
      const now = Date.now();
      const window = Math.floor(now / windowMs);
      const retryAfterSeconds = Math.max(1, Math.ceil(((window + 1) * windowMs - now) / 1000));
      const key = `${redisKeyPrefix}:new-subscriptions:${appId}:${window}`;
      try {
        const count = await app.coordination.increment(key, windowMs * 2);
        return { admitted: count <= rateLimit.subscribePerAppMax, retryAfterSeconds };
      } catch (error) {
        app.log.warn({ err: error, appId }, 'new-subscription cap unavailable; admitting');
        return { admitted: true, retryAfterSeconds };
      }
    };

    app.decorate('newSubscriptionCap', { enabled: rateLimit.subscribePerAppMax > 0, admit });
  },
  { name: 'new-subscription-cap', dependencies: ['config', 'coordination'] },
);
