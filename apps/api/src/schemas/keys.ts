import { MAX_NAME_LENGTH } from '@webpush/plans';
import { Type } from 'typebox';

export const ApiKeySchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  scope: Type.String({ enum: ['subscribe_only', 'notify', 'full'] }),
  createdAt: Type.String({ format: 'date-time' }),
  prefix: Type.Union([Type.String(), Type.Null()], {
    description:
      'The first characters of the secret (`wpk_` and 6 more), to tell keys apart; never the secret. null for keys made before it was kept',
    examples: ['wpk_Ab3dE9'],
  }),
  lastUsedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
    description:
      'When the key last authenticated a request, to the minute (written at most once a minute); null: never',
  }),
});

export const CreateKeyBody = Type.Object({
  // Not an enum in the schema: an unknown scope is INVALID_SCOPE, not INVALID_INPUT.
  scope: Type.Unknown({
    description:
      '`subscribe_only` (browsers: subscribe only), `notify` (send), or `full` (send and test); anything else is 400 INVALID_SCOPE',
    examples: ['notify'],
  }),
  name: Type.Optional(Type.String({ maxLength: MAX_NAME_LENGTH, description: 'Label for your own use' })),
});

export const CreateKeyResponse = Type.Object({
  key: ApiKeySchema,
  secret: Type.String({ description: 'The API key `wpk_…`. Shown only in this response.' }),
});

export const KeyListResponse = Type.Object({ keys: Type.Array(ApiKeySchema) });
export const KeyParams = Type.Object({ appId: Type.String(), keyId: Type.String() });
