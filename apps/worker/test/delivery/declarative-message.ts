/**
 * A parser written from the W3C Push API's "parse a declarative push message" algorithm and the
 * Notifications API's "create a notification" steps it calls, as far as a payload can fail them.
 * No Safari runs here: this is what stands in for it, fed with what the fan-out actually sent.
 */

export interface DeclarativeAction {
  action: string;
  title: string;
  navigate: URL;
  icon?: string;
}

export interface DeclarativeNotification {
  title: string;
  navigate: URL;
  body: string;
  tag: string;
  icon?: string;
  badge?: string;
  image?: string;
  silent: boolean | null;
  requireInteraction: boolean;
  renotify: boolean;
  actions: DeclarativeAction[];
  data: unknown;
}

export interface DeclarativeMessage {
  notification: DeclarativeNotification;
  appBadge: number | null;
  mutable: boolean;
}

const isMap = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Parses `url` against the subscription's base URL, as the algorithm does; throws like "failure". */
function parseUrl(value: unknown, baseUrl: string, what: string): URL {
  if (typeof value !== 'string') throw new Error(`${what} is not a string`);
  if (!URL.canParse(value, baseUrl)) throw new Error(`${what} is not a URL`);
  return new URL(value, baseUrl);
}

function optionalString(input: Record<string, unknown>, name: string): string | undefined {
  const value = input[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw new Error(`${name} is not a DOMString`);
  return value;
}

function optionalBoolean(input: Record<string, unknown>, name: string): boolean | undefined {
  const value = input[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'boolean') throw new Error(`${name} is not a boolean`);
  return value;
}

/** Returns the parsed message, or throws with the step that failed ("return failure"). */
export function parseDeclarativePushMessage(bytes: Buffer, baseUrl: string): DeclarativeMessage {
  // 1. Parse JSON bytes to an Infra value; failure on a throw.
  const message: unknown = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  // 2. Not a map: failure.
  if (!isMap(message)) throw new Error('the message is not a map');
  // 3. web_push must exist and be 8030 (a number).
  if (message.web_push !== 8030) throw new Error('web_push is not 8030');
  // 4–6. notification must exist and be a map.
  const input = message.notification;
  if (!isMap(input)) throw new Error('notification is not a map');
  // 7. title must exist and be a string.
  if (typeof input.title !== 'string') throw new Error('title is not a string');
  // 8. navigate must exist and be a string that parses as a URL.
  const navigate = parseUrl(input.navigate, baseUrl, 'navigate');
  // 9–10. The options, converted to NotificationOptions, then "create a notification".
  const actionsInput = input.actions ?? [];
  if (!Array.isArray(actionsInput)) throw new Error('actions is not a sequence');
  const actions = actionsInput.map((action, i): DeclarativeAction => {
    if (!isMap(action)) throw new Error(`actions[${i}] is not a dictionary`);
    if (typeof action.action !== 'string') throw new Error(`actions[${i}].action is required`);
    if (typeof action.title !== 'string') throw new Error(`actions[${i}].title is required`);
    const icon = optionalString(action, 'icon');
    return {
      action: action.action,
      title: action.title,
      navigate: parseUrl(action.navigate, baseUrl, `actions[${i}].navigate`),
      ...(icon === undefined ? {} : { icon }),
    };
  });
  const tag = optionalString(input, 'tag') ?? '';
  const silent = optionalBoolean(input, 'silent') ?? null;
  const renotify = optionalBoolean(input, 'renotify') ?? false;
  // "create a notification": renotify with an empty tag, or silent with vibrate, throw a TypeError.
  if (renotify && tag === '') throw new Error('renotify without a tag');
  if (silent === true && input.vibrate !== undefined) throw new Error('silent with vibrate');
  for (const name of ['icon', 'badge', 'image'] as const) {
    const value = optionalString(input, name);
    if (value !== undefined) parseUrl(value, baseUrl, name);
  }
  const notification: DeclarativeNotification = {
    title: input.title,
    navigate,
    body: optionalString(input, 'body') ?? '',
    tag,
    silent,
    requireInteraction: optionalBoolean(input, 'requireInteraction') ?? false,
    renotify,
    actions,
    data: structuredClone(input.data ?? null),
  };
  for (const name of ['icon', 'badge', 'image'] as const) {
    const value = optionalString(input, name);
    if (value !== undefined) notification[name] = value;
  }
  // 11. app_badge: an unsigned long long when present.
  let appBadge: number | null = null;
  if (message.app_badge !== undefined) {
    if (typeof message.app_badge !== 'number' || !Number.isInteger(message.app_badge) || message.app_badge < 0) {
      throw new Error('app_badge is not an unsigned long long');
    }
    appBadge = message.app_badge;
  }
  // 12. mutable: a boolean when present, else false.
  const mutable = typeof message.mutable === 'boolean' ? message.mutable : false;
  return { notification, appBadge, mutable };
}
