import { Type } from 'typebox';

export const MAX_USAGE_DAYS = 90;
export const DEFAULT_USAGE_DAYS = 30;

export const UsageQuery = Type.Object({
  days: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: MAX_USAGE_DAYS,
      default: DEFAULT_USAGE_DAYS,
      description: `Days to report, ending today (UTC): 1 to ${MAX_USAGE_DAYS}`,
    }),
  ),
});

export const UsageResponse = Type.Object({
  month: Type.Object(
    {
      sends: Type.Integer({
        description:
          "The owner's sends this calendar month (UTC) across all of their apps: what counts against the plan's limit",
      }),
      limit: Type.Union([Type.Integer(), Type.Null()], {
        description: "The plan's sends per month; null: no limit",
      }),
    },
    { description: 'Monthly usage of the app owner (per user, not per app)' },
  ),
  days: Type.Array(
    Type.Object({
      date: Type.String({ format: 'date', description: 'UTC day, YYYY-MM-DD' }),
      sends: Type.Integer({ description: "This app's sends accepted that day (targets of its notifications)" }),
    }),
    { description: 'One entry per day, oldest first, days without sends included with 0' },
  ),
});
