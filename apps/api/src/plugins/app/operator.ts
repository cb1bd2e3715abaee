import { AppError } from '@webpush/errors';
import type { FastifyRequest } from 'fastify';
import { sessionUser } from './auth.js';

/**
 * The operator console's rule (routes/operator/autohooks.ts), after `authenticate({ session: true })`:
 * a user without the operator role is 403 FORBIDDEN.
 */
export async function requireOperator(request: FastifyRequest): Promise<void> {
  if (sessionUser(request).role !== 'operator') throw new AppError('FORBIDDEN');
}
