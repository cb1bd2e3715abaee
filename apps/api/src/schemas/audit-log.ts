import { Type } from 'typebox';
import { NextCursor, PageQueryFields } from './common.js';

export const AuditLogQuery = Type.Object({
  ...PageQueryFields,
  action: Type.Optional(
    Type.String({
      pattern: '^[a-z][a-z_]*(\\.[a-z_]+)+$',
      maxLength: 64,
      description: 'Only entries of this action, e.g. `key.revoked`',
      examples: ['key.revoked'],
    }),
  ),
  actor: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 64,
      description: 'Only entries by this actor: a user id, an API key id, or `admin-cli`',
    }),
  ),
});

const AuditActorSchema = Type.Union(
  [
    Type.Object({
      type: Type.Literal('user'),
      id: Type.String({ description: 'The user id' }),
      email: Type.String({ description: 'Their e-mail when they made the change' }),
    }),
    Type.Object({ type: Type.Literal('key'), id: Type.String({ description: 'The API key id' }) }),
    Type.Object({
      type: Type.Literal('operator'),
      id: Type.String({ description: 'The operator’s user id, or `admin-cli` for `pnpm admin`' }),
    }),
  ],
  {
    description:
      'Who made the change: a signed-in user (by session or personal access token), an API key, or an operator of the service',
  },
);

export const AuditEntrySchema = Type.Object({
  id: Type.String({ format: 'uuid' }),
  at: Type.String({ format: 'date-time' }),
  actor: AuditActorSchema,
  action: Type.String({
    description:
      'What was done, e.g. `key.created`, `key.revoked`, `app.updated`, `webhook.secret_rotated`, `session.created`, `token.revoked`, `account.plan_changed` (docs/security.md lists them all)',
    examples: ['key.revoked'],
  }),
  target: Type.Union(
    [Type.Object({ type: Type.String(), id: Type.Union([Type.String(), Type.Null()]) }), Type.Null()],
    { description: 'What it was done to (`{type: "key", id}`, `{type: "app", id}`, …)' },
  ),
  details: Type.Record(Type.String(), Type.Unknown(), {
    description: 'Facts about the change that are not secret (a key’s name and scope, the fields an update set)',
  }),
  ip: Type.Union([Type.String(), Type.Null()], {
    description: 'The client address the API saw; null for changes made outside a request (`pnpm admin`)',
  }),
});

export const AuditLogResponse = Type.Object({
  entries: Type.Array(AuditEntrySchema, { description: 'Newest first' }),
  nextCursor: NextCursor,
});
