import { Type } from 'typebox';
import { PushEndpoint, RequiredString } from './common.js';
import { ActionName } from './notifications.js';

export const EventBody = Type.Object({
  notificationId: RequiredString('The `id` of the push payload (a notification id, or "test")', { maxLength: 64 }),
  // The subscription's own endpoint: its field checks are the same as subscribing (INVALID_URL, INVALID_ENDPOINT).
  endpoint: PushEndpoint("The subscription's endpoint, as subscribed", { minLength: 1 }),
  type: Type.Union([Type.Literal('shown'), Type.Literal('clicked')], {
    description: '`shown` when the notification was displayed, `clicked` when it was clicked',
  }),
  action: Type.Optional(ActionName('With `type: "clicked"`: the button clicked (its `action`)')),
});

export const EventAccepted = Type.Object({}, { description: 'Accepted; says nothing about what exists' });
