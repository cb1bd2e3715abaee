import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { publicPlanList } from '@webpush/plans';
import type { FastifyInstance } from 'fastify';
import { PlanListResponse } from '#schemas/plans.js';

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
    // The same list the pricing page is prerendered from: answers the same for everyone, no auth.
    async () => ({ plans: publicPlanList() }),
  );
}
