import { Type } from 'typebox';

export const MAX_STATS_DAYS = 90;
export const DEFAULT_STATS_DAYS = 30;

export const StatsQuery = Type.Object({
  days: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: MAX_STATS_DAYS,
      default: DEFAULT_STATS_DAYS,
      description: `Days to report, ending today (UTC): 1 to ${MAX_STATS_DAYS}`,
    }),
  ),
});

const count = (description: string) => Type.Integer({ description });

export const StatsResponse = Type.Object({
  days: Type.Array(
    Type.Object({
      date: Type.String({ format: 'date', description: 'UTC day, YYYY-MM-DD' }),
      sent: count('Pushes the push services accepted that day'),
      failed: count('Pushes that failed that day'),
      expired: count('Targets found gone that day (404/410, or gone before their push)'),
      skipped: count('Targets a send skipped that day (frequency caps)'),
      shown: count('Notifications displayed that day (counted once per notification and subscription)'),
      clicked: count('Notifications clicked that day (once per notification and subscription)'),
      converted: count('Conversions counted that day (once per notification and subscription)'),
      subscribed: count('Subscriptions made that day (or made active again)'),
      unsubscribed: count('Subscriptions that expired or were deleted that day'),
    }),
    { description: 'One entry per UTC day, oldest first, today last; a day without any counts is all zeros' },
  ),
});
