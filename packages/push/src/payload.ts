import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';

/**
 * What a browser receives, in the two formats of CONTRACT 1.2: the SDK's JSON ("legacy") and the
 * W3C Push API's declarative push message. Built by the worker for every push and by the API at
 * accept time, to refuse a payload that would not fit (3,993 bytes).
 */

/** A button: `url` is the page it opens (default: the notification's). */
export interface ContentAction {
  action: string;
  title: string;
  url?: string;
  icon?: string;
}

/** A notification's content as sent (the stored payload). */
export interface NotificationContent {
  title: string;
  body: string;
  url?: string;
  icon?: string;
  badge?: string;
  image?: string;
  actions?: ContentAction[];
  requireInteraction?: boolean;
  silent?: boolean;
  renotify?: boolean;
  tag?: string;
  data?: Record<string, unknown>;
}

/**
 * The most plaintext one RFC 8291 record carries within the 4,096 bytes every push service must
 * accept: 4,096 − 86 (header with a 65-byte key) − 16 (tag) − 1 (delimiter).
 */
export const MAX_BROWSER_PAYLOAD_BYTES = 3_993;

/**
 * The legacy payload: title, body, url, icon, badge, then each rich field that was given, and the
 * notification's id, which the SDK's service worker reports engagement with. Key order is fixed
 * here (jsonb does not keep it).
 */
export function legacyPayload(content: NotificationContent, id: string): string {
  const { title, body, url, icon, badge, image, actions, requireInteraction, silent, renotify, tag, data } = content;
  return JSON.stringify({
    title,
    body,
    url,
    icon,
    badge,
    image,
    actions: actions?.map(({ action, title, url, icon }) => ({ action, title, url, icon })),
    requireInteraction,
    silent,
    renotify,
    tag,
    data,
    id,
  });
}

// ---------------------------------------------------------------------------------------------
// Click links: `${PUBLIC_URL}/c/<token>`, one per subscription and link (the notification, or one
// of its buttons). The token carries the notification id, the subscription id and the link's index,
// and an HMAC over them under a key derived from ENCRYPTION_KEY: nothing is stored per push, and the
// redirect goes to the URL stored on the notification, never to one carried in the token.

const ID_BYTES = 16;
const MAC_BYTES = 16;
const TOKEN_BYTES = ID_BYTES * 2 + 1 + MAC_BYTES;
/** Characters of every click token (base64url of 49 bytes, unpadded). */
export const CLICK_TOKEN_LENGTH = Math.ceil((TOKEN_BYTES * 4) / 3);

/** The link a token opens: 0 for the notification, i for its i-th button (1-based). */
export interface ClickTarget {
  notificationId: string;
  subscriptionId: string;
  link: number;
}

const uuidBytes = (id: string, into: Buffer, at: number) => {
  into.write(id.replaceAll('-', ''), at, ID_BYTES, 'hex');
};
const uuidText = (bytes: Buffer) => {
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
};

/** The 16 bytes of a UUID's text. */
export function uuidToBytes(id: string): Buffer {
  const bytes = Buffer.alloc(ID_BYTES);
  uuidBytes(id, bytes, 0);
  return bytes;
}

/** Signs and checks click tokens with a key derived from the service's ENCRYPTION_KEY. */
export class ClickTokens {
  /** The HMAC key itself: what the encryption threads sign with (`ClickTokens.withKey`). */
  readonly key: Buffer;

  private constructor(key: Buffer) {
    this.key = key;
  }

  /** The tokens of the service whose ENCRYPTION_KEY this is. */
  static fromEncryptionKey(encryptionKey: Buffer): ClickTokens {
    return new ClickTokens(Buffer.from(hkdfSync('sha256', encryptionKey, Buffer.alloc(0), 'webpush:click-links', 32)));
  }

  /** Tokens under an HMAC key already derived (`tokens.key`), as an encryption thread receives it. */
  static withKey(key: Buffer): ClickTokens {
    return new ClickTokens(key);
  }

  #mac(message: Buffer): Buffer {
    return createHmac('sha256', this.key).update(message).digest().subarray(0, MAC_BYTES);
  }

  /** The token of one link from the ids' 16 bytes each. */
  signBytes(notificationId: Uint8Array, subscriptionId: Uint8Array, link: number): string {
    const bytes = Buffer.alloc(TOKEN_BYTES);
    bytes.set(notificationId, 0);
    bytes.set(subscriptionId, ID_BYTES);
    bytes[ID_BYTES * 2] = link;
    this.#mac(bytes.subarray(0, ID_BYTES * 2 + 1)).copy(bytes, ID_BYTES * 2 + 1);
    return bytes.toString('base64url');
  }

  /** The token of one link. */
  sign({ notificationId, subscriptionId, link }: ClickTarget): string {
    return this.signBytes(uuidToBytes(notificationId), uuidToBytes(subscriptionId), link);
  }

  /** What a token stands for, or null when it does not verify. */
  verify(token: string): ClickTarget | null {
    if (token.length !== CLICK_TOKEN_LENGTH || !/^[A-Za-z0-9_-]+$/.test(token)) return null;
    const bytes = Buffer.from(token, 'base64url');
    // Only the canonical spelling: the last character's unused bits must be zero.
    if (bytes.length !== TOKEN_BYTES || bytes.toString('base64url') !== token) return null;
    const expected = this.#mac(bytes.subarray(0, ID_BYTES * 2 + 1));
    if (!timingSafeEqual(expected, bytes.subarray(ID_BYTES * 2 + 1))) return null;
    return {
      notificationId: uuidText(bytes.subarray(0, ID_BYTES)),
      subscriptionId: uuidText(bytes.subarray(ID_BYTES, ID_BYTES * 2)),
      link: bytes[ID_BYTES * 2] as number,
    };
  }
}

/** A UUID-shaped placeholder: every id has the same length, so sizes can be checked before the id exists. */
export const PLACEHOLDER_ID = '00000000-0000-0000-0000-000000000000';

/**
 * A declarative payload with a hole for each click token: the text around the holes (`parts`,
 * one more than the holes) and, per hole, which link it is. Every token has the same length, so
 * every target's plaintext has the same length, and the encryption threads fill the holes in.
 */
export interface DeclarativeTemplate {
  parts: string[];
  links: number[];
}

const json = (value: unknown) => JSON.stringify(value);

/**
 * The W3C declarative push message of CONTRACT 1.2: `{"web_push": 8030, "notification": {...},
 * "mutable": true}`, with `navigate` (and each button's) a click link `${linkBase}<token>`.
 * `mutable` lets a browser that runs the service worker anyway (all but Safari) hand it to the SDK.
 */
export function declarativeTemplate(content: NotificationContent, id: string, linkBase: string): DeclarativeTemplate {
  const base = json(linkBase).slice(1, -1);
  const parts: string[] = [];
  const links: number[] = [];
  let text = `{"web_push":8030,"notification":{"title":${json(content.title)},"navigate":"${base}`;
  const hole = (link: number) => {
    parts.push(text);
    links.push(link);
    text = '"';
  };
  hole(0);
  const field = (name: string, value: unknown) => {
    if (value !== undefined) text += `,${json(name)}:${json(value)}`;
  };
  field('body', content.body);
  field('icon', content.icon);
  field('badge', content.badge);
  field('image', content.image);
  field('tag', content.tag);
  field('silent', content.silent);
  field('requireInteraction', content.requireInteraction);
  field('renotify', content.renotify);
  if (content.actions !== undefined) {
    text += ',"actions":[';
    content.actions.forEach((action, i) => {
      text += `${i === 0 ? '' : ','}{"action":${json(action.action)},"title":${json(action.title)},"navigate":"${base}`;
      hole(i + 1);
      if (action.icon !== undefined) text += `,"icon":${json(action.icon)}`;
      text += '}';
    });
    text += ']';
  }
  text += `,"data":${json({ id, data: content.data })}},"mutable":true}`;
  parts.push(text);
  return { parts, links };
}

/** The template with every hole filled by `token(link)`. */
export function fillTemplate(template: DeclarativeTemplate, token: (link: number) => string): string {
  let out = template.parts[0] as string;
  template.links.forEach((link, i) => {
    out += token(link) + template.parts[i + 1];
  });
  return out;
}

/** The UTF-8 bytes of a payload as delivered: holes count as tokens. */
export function templateBytes(template: DeclarativeTemplate): number {
  return (
    template.parts.reduce((sum, part) => sum + Buffer.byteLength(part, 'utf8'), 0) +
    template.links.length * CLICK_TOKEN_LENGTH
  );
}

/** Byte offsets of the holes in the filled payload, for the encryption threads. */
export function templateSlots(template: DeclarativeTemplate): number[] {
  const slots: number[] = [];
  let at = 0;
  template.links.forEach((_, i) => {
    at += Buffer.byteLength(template.parts[i] as string, 'utf8');
    slots.push(at);
    at += CLICK_TOKEN_LENGTH;
  });
  return slots;
}

/**
 * The UTF-8 bytes the browsers of an app in `pushFormat` receive for `content`: the legacy JSON with
 * its id, or the declarative message with its click links (ids and tokens have fixed lengths, so
 * placeholders measure exactly). Checked against MAX_BROWSER_PAYLOAD_BYTES at acceptance and again
 * when a scheduled send starts (its app may have switched to declarative since).
 */
export function deliveredPayloadBytes(
  content: NotificationContent,
  pushFormat: 'legacy' | 'declarative',
  linkBase: string,
): number {
  return pushFormat === 'declarative'
    ? templateBytes(declarativeTemplate(content, PLACEHOLDER_ID, linkBase))
    : Buffer.byteLength(legacyPayload(content, PLACEHOLDER_ID), 'utf8');
}
