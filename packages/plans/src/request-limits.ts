/**
 * What one request may carry (docs/sending.md, docs/accounts.md). The API's schemas enforce them and the
 * dashboard's forms check them before asking: both read them here, so a figure is written once.
 */

/** title, body, url, icon and badge as UTF-8 JSON. */
export const MAX_PAYLOAD_BYTES = 3_072;
export const MAX_BATCH_ENDPOINTS = 100;
export const MAX_TTL_SECONDS = 2_419_200;
export const DEFAULT_TTL_SECONDS = 86_400;
export const MAX_TARGET_UIDS = 1_000;
/** Buttons of a notification. */
export const MAX_ACTIONS = 2;
/** A button's label, in characters. */
export const MAX_ACTION_TITLE_LENGTH = 64;
/** A notification's `tag`, in characters. */
export const MAX_TAG_LENGTH = 64;
/** `data` as UTF-8 JSON. */
export const MAX_DATA_BYTES = 1_024;
/** Alternatives of an A/B test (variants `B`–`D`; the send's own content is `A`). */
export const MAX_VARIANTS = 3;
/** The share of the targets an A/B test's sample may take. */
export const MIN_SAMPLE = 0.05;
export const MAX_SAMPLE = 0.5;
/** How long a sample may run before its winner is chosen. */
export const MAX_WINNER_AFTER_MINUTES = 1_440;
/** How far ahead `sendAt` may be. */
export const MAX_SCHEDULE_AHEAD_DAYS = 30;
export const MAX_SCHEDULE_AHEAD_MS = MAX_SCHEDULE_AHEAD_DAYS * 24 * 60 * 60 * 1000;
/** A password, in characters (Unicode code points). */
export const MIN_PASSWORD_LENGTH = 8;
export const MAX_PASSWORD_LENGTH = 128;
/** The display name of an app or an API key, in characters. */
export const MAX_NAME_LENGTH = 200;
/** A webhook's URL, in characters. */
export const MAX_WEBHOOK_URL_LENGTH = 2_048;
/** Origins an app's `subscribe_only` keys may be used from. */
export const MAX_ALLOWED_ORIGINS = 20;
/** Subscriptions one `POST /apps/{appId}/subscribers/import` takes; a larger list goes in several requests. */
export const MAX_IMPORT_SUBSCRIBERS = 10_000;
/** The body of an import, which alone may exceed `BODY_LIMIT_BYTES`: 10,000 subscriptions with uid and tags fit. */
export const MAX_IMPORT_BODY_BYTES = 4 * 1024 * 1024;
/** Languages of one send besides its own text (`translations`). */
export const MAX_TRANSLATIONS = 20;
/** A send's `throttle.perMinute`. */
export const MIN_THROTTLE_PER_MINUTE = 10;
export const MAX_THROTTLE_PER_MINUTE = 1_000_000;
/** An app's `frequencyCap`: at most `max` pushes in `hours`. */
export const MAX_FREQUENCY_CAP_PUSHES = 100;
export const MAX_FREQUENCY_CAP_HOURS = 720;
/** A segment expression: and/or/not inside one another, leaves, operands of one and/or, values of one `in`. */
export const MAX_SEGMENT_DEPTH = 5;
export const MAX_SEGMENT_LEAVES = 50;
export const MAX_SEGMENT_OPERANDS = 20;
export const MAX_SEGMENT_IN_VALUES = 100;
export const MAX_SUBSCRIBED_WITHIN_DAYS = 3_650;
/** A saved segment's name, in characters. */
export const MAX_SEGMENT_NAME_LENGTH = 100;
