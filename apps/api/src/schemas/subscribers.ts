import { Type } from 'typebox';
import { NextCursor, PageQueryFields } from './common.js';

const SubscriptionStatus = (description?: string) =>
  Type.Union([Type.Literal('active'), Type.Literal('expired')], description ? { description } : {});

export const SubscriberListQuery = Type.Object({
  status: Type.Optional(SubscriptionStatus('Only subscribers of this status; absent: both')),
  ...PageQueryFields,
});

export const SubscriberSchema = Type.Object({
  id: Type.String({ format: 'uuid' }),
  endpoint: Type.String({ description: 'Push endpoint; its host tells the push service (FCM, Mozilla, Apple, WNS)' }),
  status: SubscriptionStatus(),
  uid: Type.Union([Type.String(), Type.Null()], {
    description: 'Your user id for this subscriber (not set yet: null)',
  }),
  tags: Type.Record(Type.String(), Type.String(), { description: 'Your tags for this subscriber (none yet: {})' }),
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
