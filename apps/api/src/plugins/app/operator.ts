import { AppError } from '@webpush/errors';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { sessionUser } from './auth.js';

/**
 * The operator console's rule, for every route under /operator: a live session (a suspended
 * account has none) of a user with the operator role; anyone else is 403 FORBIDDEN before any
 * account is read. Added after `authenticate({ session: true })`.
 */
export async function requireOperator(request: FastifyRequest): Promise<void> {
  if (sessionUser(request).role !== 'operator') throw new AppError('FORBIDDEN');
}

/** Both hooks of an operator route: the session, then the role. */
export function operatorOnly(app: FastifyInstance): void {
  app.addHook('onRequest', app.authenticate({ session: true }));
  app.addHook('onRequest', requireOperator);
}

export const sessionSecurity: Record<string, string[]>[] = [{ session: [] }, { sessionCookie: [] }];
