import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { planDisplayNames, planNames, plans } from '@webpush/plans';
import type { FastifyInstance } from 'fastify';
import { PlanListResponse } from '../../schemas/plans.js';

/** The plans and their limits, from the plans package: answers the same for everyone, no auth. */
const planList = {
  plans: planNames.map((id) => ({
    id,
    name: planDisplayNames[id],
    limits: {
      apps: plans[id].apps,
      subscribers: plans[id].activeSubscribers,
      sendsPerMonth: plans[id].sendsPerMonth,
    },
  })),
};

export default async function routes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.get(
    '/',
    {
      schema: {
        tags: ['plans'],
        summary: 'Every plan with its limits (for the pricing page); no sign-in needed',
        security: [],
        response: { 200: PlanListResponse },
      },
    },
    async () => planList,
  );
}
