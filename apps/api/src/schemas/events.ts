import { Type } from 'typebox';
import { PushEndpoint, RequiredString } from './common.js';
import { ActionName } from './notifications.js';

export const EventBody = Type.Object({
  notificationId: RequiredString('The `id` of the push payload (a notification id, or "test")', { maxLength: 64 }),
  // The subscription's own endpoint: its field checks are the same as subscribing (INVALID_URL, INVALID_ENDPOINT).
  endpoint: PushEndpoint("The subscription's endpoint, as subscribed", { minLength: 1 }),
  type: Type.Union([Type.Literal('shown'), Type.Literal('clicked'), Type.Literal('converted')], {
    description:
      '`shown` when the notification was displayed, `clicked` when it was clicked, `converted` when the visitor ' +
      'it brought did what the site counts as a conversion (a purchase, a sign-up)',
  }),
  action: Type.Optional(ActionName('With `type: "clicked"`: the button clicked (its `action`)')),
  value: Type.Optional(
    Type.Number({
      minimum: 0,
      maximum: 1_000_000_000,
      description: 'With `type: "converted"`: what the conversion was worth, summed in `conversionValue`',
      examples: [19.99],
    }),
  ),
});

export const EventAccepted = Type.Object({}, { description: 'Accepted; says nothing about what exists' });
