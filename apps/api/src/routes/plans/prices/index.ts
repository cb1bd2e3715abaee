import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { PlanPricesResponse } from '#schemas/plans.js';

export default async function routes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.get(
    '/',
    {
      schema: {
        tags: ['plans'],
        summary: 'What each plan costs, and how a plan request reaches the operator; no sign-in needed',
        description:
          'Beside GET /plans, whose list is the same on every deployment: prices are this deployment’s configuration (PLAN_PRICE_FREE, PLAN_PRICE_PRO, PLAN_PRICE_ENTERPRISE).',
        security: [],
        response: { 200: PlanPricesResponse },
      },
    },
    async () => ({ prices: app.config.planPrices, operatorEmailed: app.config.mail.operator !== null }),
  );
}
