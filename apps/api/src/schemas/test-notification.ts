import { Type } from 'typebox';
import { PushEndpoint } from './common.js';
import { Auth, P256dh } from './subscriptions.js';

export const TestNotificationBody = Type.Object({
  subscription: Type.Object(
    {
      endpoint: PushEndpoint(undefined, { minLength: 1 }),
      p256dh: P256dh(),
      auth: Auth(),
    },
    { description: 'The browser subscription to send to; it is not stored' },
  ),
});

export const TestNotificationResponse = Type.Object({
  ok: Type.Literal(true, { description: 'The push service accepted the message' }),
});
