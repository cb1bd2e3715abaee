import { MAX_NAME_LENGTH } from '@webpush/plans';
import { Type } from 'typebox';
import { RequiredString } from './common.js';

export const AccessTokenSchema = Type.Object({
  id: Type.String({ format: 'uuid' }),
  name: Type.String(),
  createdAt: Type.String({ format: 'date-time' }),
  lastUsedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
    description:
      'When the token last authenticated a request, to the minute (written at most once a minute); null: never',
  }),
});

export const CreateAccessTokenBody = Type.Object({
  name: RequiredString('What the token is for (a CI pipeline, a script)', { maxLength: MAX_NAME_LENGTH }),
});

export const CreateAccessTokenResponse = Type.Object({
  token: AccessTokenSchema,
  secret: Type.String({
    description: 'The token `wpt_…`, used as `Authorization: Bearer wpt_…` on /apps/**. Shown only in this response.',
  }),
});

export const AccessTokenListResponse = Type.Object({ tokens: Type.Array(AccessTokenSchema) });
export const AccessTokenParams = Type.Object({ id: Type.String({ description: 'Token id (uuid)' }) });
