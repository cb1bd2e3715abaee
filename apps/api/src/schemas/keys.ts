import { MAX_NAME_LENGTH } from '@webpush/plans';
import { Type } from 'typebox';

export const ApiKeySchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  scope: Type.String({ enum: ['subscribe_only', 'notify', 'full'] }),
  createdAt: Type.String({ format: 'date-time' }),
});

export const CreateKeyBody = Type.Object({
  // Not an enum in the schema: an unknown scope is INVALID_SCOPE (SPEC §5.2), not INVALID_INPUT.
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
