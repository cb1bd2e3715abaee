import type { FastifyInstance } from 'fastify';
import { countRefusedSends } from '../../sending/accept.js';

/** /notify and /notify/batch: every refused send is counted by its code (webpush_notifications_refused_total). */
export default async function notifyHooks(app: FastifyInstance) {
  countRefusedSends(app);
}
