import { Type } from 'typebox';
import { PushEndpoint } from './common.js';
import { Auth, P256dh, SubscriptionKeys } from './subscriptions.js';

export const TestNotificationBody = Type.Object({
  subscription: Type.Object(
    {
      endpoint: PushEndpoint(undefined, { minLength: 1 }),
      p256dh: P256dh(),
      auth: Auth(),
      keys: SubscriptionKeys(),
      expirationTime: Type.Optional(
        Type.Union([Type.Number(), Type.Null()], { description: 'From toJSON(); ignored' }),
      ),
    },
    {
      description:
        'The browser subscription to send to, flat `{endpoint, p256dh, auth}` or `PushSubscription.toJSON()` `{endpoint, keys:{p256dh, auth}}`; it is not stored',
    },
  ),
});

export const TestNotificationResponse = Type.Object({
  ok: Type.Literal(true, { description: 'The push service accepted the message' }),
});
