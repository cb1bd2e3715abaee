import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { listOwnPlanRequests, requestPlan } from '@webpush/db';
import { AppError } from '@webpush/errors';
import { isUpgrade } from '@webpush/plans';
import type { FastifyInstance } from 'fastify';
import { sessionUser } from '#plugins/app/auth.js';
import { errorResponses, sessionSecurity } from '#schemas/common.js';
import { CreatedPlanRequestResponse, CreatePlanRequestBody, PlanRequestListResponse } from '#schemas/operator.js';
import { publicPlanRequest } from '../operator/public-views.js';
import { planRequestMail } from './plan-request-mail.js';

/**
 * The pricing page's call to action: the signed-in customer asks the operator for a plan. The
 * request shows in the operator console and is e-mailed to OPERATOR_EMAIL.
 */
export default async function planRequestRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.addHook('onRequest', app.authenticate({ session: true }));

  app.post(
    '/',
    {
      schema: {
        tags: ['accounts'],
        summary: 'Ask the operator for another plan',
        description:
          'One open request per account: asking again while one is open changes the plan asked for (200 instead of 201). Only a higher plan than the account’s can be asked for (else 400 INVALID_INPUT); the operator moves plans down in the console. The operator is e-mailed when OPERATOR_EMAIL is set (`operatorEmailed`), and grants it in the console.',
        security: sessionSecurity,
        body: CreatePlanRequestBody,
        response: {
          200: CreatedPlanRequestResponse,
          201: CreatedPlanRequestResponse,
          ...errorResponses('MISSING_FIELDS', 'INVALID_INPUT', 'UNAUTHORIZED', 'INVALID_SESSION'),
        },
      },
    },
    async (request, reply) => {
      const user = sessionUser(request);
      if (!isUpgrade(user.plan, request.body.plan))
        throw new AppError('INVALID_INPUT', { detail: 'PLAN_NOT_AN_UPGRADE' });
      const message = request.body.message?.trim() || null;
      const { request: stored, created } = await requestPlan(app.db, user.id, { plan: request.body.plan, message });
      request.log.info({ userId: user.id, plan: stored.plan, requestId: stored.id }, 'plan requested');
      const operator = app.config.mail.operator;
      if (operator) {
        app.mailer.sendLater(async () => {
          // Per customer: asking again and again must not flood the operator's mailbox.
          if (!(await app.mayMailAddress('plan_request', user.email))) return null;
          return planRequestMail({
            to: operator,
            customer: user.email,
            currentPlan: user.plan,
            plan: stored.plan,
            message: stored.message,
            consoleUrl: `${app.config.publicUrl}/operator`,
          });
        });
      }
      return reply
        .code(created ? 201 : 200)
        .send({ planRequest: publicPlanRequest(stored), operatorEmailed: operator !== null });
    },
  );

  app.get(
    '/',
    {
      schema: {
        tags: ['accounts'],
        summary: 'Your plan requests, newest first (the open one, and the last few granted)',
        security: sessionSecurity,
        response: { 200: PlanRequestListResponse, ...errorResponses('UNAUTHORIZED', 'INVALID_SESSION') },
      },
    },
    async (request) => ({
      planRequests: (await listOwnPlanRequests(app.db, sessionUser(request).id)).map(publicPlanRequest),
    }),
  );
}
