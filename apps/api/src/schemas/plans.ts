import { Type } from 'typebox';

const Limit = (description: string) =>
  Type.Union([Type.Integer(), Type.Null()], { description: `${description}; null: no limit` });

export const PlanSchema = Type.Object({
  id: Type.String({ description: 'What `user.plan` says: `free`, `pro` or `enterprise`', examples: ['free'] }),
  name: Type.String({ description: 'Display name', examples: ['Free'] }),
  limits: Type.Object({
    apps: Limit('Apps per user'),
    subscribers: Limit('Active subscribers per user, across their apps'),
    sendsPerMonth: Limit('Sends per calendar month (UTC) per user, across their apps'),
  }),
});

export const PlanListResponse = Type.Object({ plans: Type.Array(PlanSchema) });
