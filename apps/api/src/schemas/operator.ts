import { planNames } from '@webpush/plans';
import { Type } from 'typebox';
import { NextCursor, PageQueryFields } from './common.js';

const PlanName = Type.Union(
  planNames.map((plan) => Type.Literal(plan)),
  { description: `One of ${planNames.join(', ')}`, examples: ['pro'] },
);

export const TenantSchema = Type.Object({
  id: Type.String(),
  email: Type.String(),
  plan: Type.String({ description: 'free, pro or enterprise' }),
  role: Type.Union([Type.Literal('customer'), Type.Literal('operator')]),
  suspended: Type.Boolean({
    description: 'A suspended account’s API keys answer INVALID_API_KEY and its sessions INVALID_SESSION',
  }),
  suspendedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  createdAt: Type.String({ format: 'date-time' }),
  apps: Type.Integer({ description: 'Apps of the account' }),
  subscribers: Type.Integer({ description: 'Active subscribers across its apps' }),
  sendsThisMonth: Type.Integer({ description: 'Sends accepted this calendar month (UTC), across its apps' }),
});

export const TenantListQuery = Type.Object({
  ...PageQueryFields,
  q: Type.Optional(
    Type.String({ minLength: 1, maxLength: 254, description: 'Only accounts whose e-mail starts with this' }),
  ),
});

export const TenantListResponse = Type.Object({ tenants: Type.Array(TenantSchema), nextCursor: NextCursor });
export const TenantResponse = Type.Object({ tenant: TenantSchema });

export const TenantParams = Type.Object({ userId: Type.String({ description: 'The account’s user id (uuid)' }) });

export const TenantPlanBody = Type.Object({ plan: PlanName });

export const PlanRequestSchema = Type.Object({
  id: Type.String(),
  plan: Type.String({ description: 'The plan asked for' }),
  message: Type.Union([Type.String(), Type.Null()]),
  status: Type.Union([Type.Literal('open'), Type.Literal('granted')]),
  createdAt: Type.String({ format: 'date-time' }),
  resolvedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
});

export const OperatorPlanRequestSchema = Type.Intersect([
  PlanRequestSchema,
  Type.Object({
    userId: Type.String(),
    email: Type.String(),
    currentPlan: Type.String({ description: 'The account’s plan now' }),
  }),
]);

export const CreatePlanRequestBody = Type.Object({
  plan: PlanName,
  message: Type.Optional(Type.String({ maxLength: 1000, description: 'A note to the operator' })),
});

export const CreatedPlanRequestResponse = Type.Object({
  planRequest: PlanRequestSchema,
  operatorEmailed: Type.Boolean({
    description:
      'Whether the operator is e-mailed about it (OPERATOR_EMAIL is set); false: it waits in the operator console until the operator looks',
  }),
});
export const PlanRequestListResponse = Type.Object({ planRequests: Type.Array(PlanRequestSchema) });
export const OperatorPlanRequestListResponse = Type.Object({ planRequests: Type.Array(OperatorPlanRequestSchema) });
export const GrantedPlanRequestResponse = Type.Object({
  planRequest: OperatorPlanRequestSchema,
  tenant: TenantSchema,
});

export const PlanRequestParams = Type.Object({ requestId: Type.String({ description: 'Plan request id (uuid)' }) });
