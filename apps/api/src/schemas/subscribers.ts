import { Type } from 'typebox';
import { NextCursor, PageQueryFields } from './common.js';

const SubscriptionStatus = (description?: string) =>
  Type.Union([Type.Literal('active'), Type.Literal('expired')], description ? { description } : {});

export const SubscriberListQuery = Type.Object({
  status: Type.Optional(SubscriptionStatus('Only subscribers of this status; absent: both')),
  uid: Type.Optional(Type.String({ maxLength: 128, pattern: '\\S', description: 'Only the subscribers of this uid' })),
  tag: Type.Optional(
    Type.String({
      pattern: '^[A-Za-z0-9_.-]{1,64}:',
      maxLength: 193,
      description: 'Only the subscribers carrying this tag, as `key:value` (the value may be empty or contain `:`)',
      examples: ['lang:ja'],
    }),
  ),
  ...PageQueryFields,
});

export const SubscriberSchema = Type.Object({
  id: Type.String({ format: 'uuid' }),
  endpoint: Type.String({ description: 'Push endpoint; its host tells the push service (FCM, Mozilla, Apple, WNS)' }),
  status: SubscriptionStatus(),
  uid: Type.Union([Type.String(), Type.Null()], {
    description: 'Your user id for this subscriber (none: null)',
  }),
  tags: Type.Record(Type.String(), Type.String(), { description: 'Your tags for this subscriber (none: {})' }),
  language: Type.Union([Type.String(), Type.Null()], {
    description: 'The browser’s language (BCP 47) as the SDK or your page gave it; null when unknown',
  }),
  timeZone: Type.Union([Type.String(), Type.Null()], {
    description: 'The browser’s IANA time zone; null when unknown',
  }),
  vapidPublicKey: Type.Union([Type.String(), Type.Null()], {
    description:
      'The VAPID public key the subscription was made with (it is pushed with that key); null for an expired subscription whose retired key was deleted',
  }),
  createdAt: Type.String({ format: 'date-time' }),
});

export const SubscriberListResponse = Type.Object({
  subscribers: Type.Array(SubscriberSchema, { description: 'Newest first' }),
  nextCursor: NextCursor,
});

export const SubscriberParams = Type.Object({
  appId: Type.String({ description: 'App id (uuid)' }),
  subscriberId: Type.String({ description: 'Subscriber id (uuid)' }),
});
