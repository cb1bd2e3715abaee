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

const Price = Type.Union([Type.String(), Type.Null()], {
  description:
    'What the plan costs, as the operator wrote it (PLAN_PRICE_<PLAN>, e.g. `¥3,000 / month`, the same in every language); `"0"`: free of charge; null: not set, ask the operator ("contact us")',
  examples: ['¥3,000 / month'],
});

export const PlanPricesResponse = Type.Object({
  prices: Type.Object({ free: Price, pro: Price, enterprise: Price }),
  operatorEmailed: Type.Boolean({
    description:
      'Whether a plan request is e-mailed to the operator (OPERATOR_EMAIL is set); false: it waits in the operator console until the operator looks',
  }),
});
