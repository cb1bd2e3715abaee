import type { FastifyInstance } from 'fastify';
import { countRefusedSends } from '#sending/accept.js';

/**
 * /notify and /notify/batch: a `notify` (or `full`) API key, rate limited per key, and every refused
 * send counted by its code (webpush_notifications_refused_total).
 */
export default async function notifyHooks(app: FastifyInstance) {
  app.addHook('onRequest', app.limiters.apiKey);
  app.addHook('onRequest', app.authenticate({ apiKey: 'notify' }));
  countRefusedSends(app);
}
