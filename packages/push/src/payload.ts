import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';
import { SHA256_BLOCK_BYTES, SHA256_INITIAL_STATE, sha256Block } from './sha256-block.js';

/**
 * What a browser receives, in two formats (docs/sending.md): the SDK's JSON ("legacy") and the
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
  /** The number on the app's icon (`navigator.setAppBadge`; 0 clears it). */
  appBadge?: number;
  /** An A/B test's letter (legacy payloads carry it, so a page's own code can tell variants apart). */
  variant?: string;
}

/**
 * The most plaintext one RFC 8291 record carries within the 4,096 bytes every push service must
 * accept: 4,096 − 86 (header with a 65-byte key) − 16 (tag) − 1 (delimiter).
 */
export const MAX_BROWSER_PAYLOAD_BYTES = 3_993;

/** The SDK's service worker reports engagement with `id`; key order is fixed here (jsonb does not keep it). */
export function legacyPayload(content: NotificationContent, id: string): string {
  const {
    title,
    body,
    url,
    icon,
    badge,
    image,
    actions,
    requireInteraction,
    silent,
    renotify,
    tag,
    data,
    appBadge,
    variant,
  } = content;
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
    appBadge,
    variant,
    id,
  });
}

// Click links: `${PUBLIC_URL}/c/<token>`, one per subscription and link (the notification, or one
// of its buttons). The token carries the notification id, the subscription id and the link's index,
// and an HMAC over them under a key derived from ENCRYPTION_KEY: nothing is stored per push, and the
// redirect goes to the URL stored on the notification, never to one carried in the token.

const ID_BYTES = 16;
const MAC_BYTES = 16;
const SIGNED_BYTES = ID_BYTES * 2 + 1;
const TOKEN_BYTES = SIGNED_BYTES + MAC_BYTES;
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

export function uuidToBytes(id: string): Buffer {
  const bytes = Buffer.alloc(ID_BYTES);
  uuidBytes(id, bytes, 0);
  return bytes;
}

export class ClickTokens {
  /** The HMAC key itself: what the encryption threads sign with (`ClickTokenWriter`). */
  readonly key: Buffer;

  private constructor(key: Buffer) {
    this.key = key;
  }

  static fromEncryptionKey(encryptionKey: Buffer): ClickTokens {
    return new ClickTokens(Buffer.from(hkdfSync('sha256', encryptionKey, Buffer.alloc(0), 'webpush:click-links', 32)));
  }

  #mac(message: Buffer): Buffer {
    return createHmac('sha256', this.key).update(message).digest().subarray(0, MAC_BYTES);
  }

  sign({ notificationId, subscriptionId, link }: ClickTarget): string {
    const bytes = Buffer.alloc(TOKEN_BYTES);
    uuidBytes(notificationId, bytes, 0);
    uuidBytes(subscriptionId, bytes, ID_BYTES);
    bytes[ID_BYTES * 2] = link;
    this.#mac(bytes.subarray(0, SIGNED_BYTES)).copy(bytes, SIGNED_BYTES);
    return bytes.toString('base64url');
  }

  verify(token: string): ClickTarget | null {
    if (token.length !== CLICK_TOKEN_LENGTH || !/^[A-Za-z0-9_-]+$/.test(token)) return null;
    const bytes = Buffer.from(token, 'base64url');
    // Only the canonical spelling: the last character's unused bits must be zero.
    if (bytes.length !== TOKEN_BYTES || bytes.toString('base64url') !== token) return null;
    const expected = this.#mac(bytes.subarray(0, SIGNED_BYTES));
    if (!timingSafeEqual(expected, bytes.subarray(SIGNED_BYTES))) return null;
    return {
      notificationId: uuidText(bytes.subarray(0, ID_BYTES)),
      subscriptionId: uuidText(bytes.subarray(ID_BYTES, ID_BYTES * 2)),
      link: bytes[ID_BYTES * 2] as number,
    };
  }
}

/** The base64url alphabet as ASCII codes, for writing a token's characters straight into a payload. */
const BASE64URL = Buffer.from('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_', 'latin1');
const SHA256_BYTES = 32;

/** The SHA-256 state after one block: the key XORed with an HMAC pad (RFC 2104). */
function padState(key: Uint8Array, pad: number): Int32Array {
  const block = new Uint8Array(SHA256_BLOCK_BYTES);
  for (let i = 0; i < SHA256_BLOCK_BYTES; i++) block[i] = (key[i] ?? 0) ^ pad;
  const state = new Int32Array(SHA256_INITIAL_STATE);
  sha256Block(state, block);
  return state;
}

/** The last block of a SHA-256 message of one block plus `length` bytes: room for them, then the padding. */
function finalBlock(length: number): Uint8Array {
  const block = new Uint8Array(SHA256_BLOCK_BYTES);
  block[length] = 0x80;
  const bits = (SHA256_BLOCK_BYTES + length) * 8;
  block[SHA256_BLOCK_BYTES - 2] = bits >>> 8;
  block[SHA256_BLOCK_BYTES - 1] = bits & 0xff;
  return block;
}

function writeDigest(state: Int32Array, into: Uint8Array, at: number, bytes: number) {
  for (let i = 0; i < bytes; i++) into[at + i] = (state[i >> 2] as number) >>> (24 - 8 * (i & 3));
}

/**
 * Signs click tokens as `ClickTokens.sign` does, byte for byte (tested), but with the HMAC's two
 * pad-block states (RFC 2104) computed once: a token is then two SHA-256 compressions on reused
 * buffers, written straight into the payload's bytes (docs/performance.md).
 */
export class ClickTokenWriter {
  readonly #innerStart: Int32Array;
  readonly #outerStart: Int32Array;
  readonly #state = new Int32Array(8);
  readonly #inner = finalBlock(SIGNED_BYTES);
  readonly #outer = finalBlock(SHA256_BYTES);
  readonly #token = new Uint8Array(TOKEN_BYTES);

  constructor(key: Uint8Array, notificationId: Uint8Array) {
    // A longer key would be hashed first (RFC 2104 §2); the derived key is 32 bytes.
    if (key.length > SHA256_BLOCK_BYTES) throw new RangeError('a click-link key is at most 64 bytes');
    this.#innerStart = padState(key, 0x36);
    this.#outerStart = padState(key, 0x5c);
    this.#inner.set(notificationId, 0);
    this.#token.set(notificationId, 0);
  }

  write(into: Uint8Array, at: number, subscriptionId: Uint8Array, link: number): void {
    const state = this.#state;
    const token = this.#token;
    this.#inner.set(subscriptionId, ID_BYTES);
    this.#inner[ID_BYTES * 2] = link;
    state.set(this.#innerStart);
    sha256Block(state, this.#inner);
    writeDigest(state, this.#outer, 0, SHA256_BYTES);
    state.set(this.#outerStart);
    sha256Block(state, this.#outer);
    token.set(subscriptionId, ID_BYTES);
    token[ID_BYTES * 2] = link;
    writeDigest(state, token, SIGNED_BYTES, MAC_BYTES);
    let out = at;
    let i = 0;
    for (; i + 3 <= TOKEN_BYTES; i += 3) {
      const group = ((token[i] as number) << 16) | ((token[i + 1] as number) << 8) | (token[i + 2] as number);
      into[out++] = BASE64URL[group >>> 18] as number;
      into[out++] = BASE64URL[(group >>> 12) & 63] as number;
      into[out++] = BASE64URL[(group >>> 6) & 63] as number;
      into[out++] = BASE64URL[group & 63] as number;
    }
    const last = token[i] as number;
    into[out++] = BASE64URL[last >>> 2] as number;
    into[out] = BASE64URL[(last & 3) << 4] as number;
  }
}

/** A UUID-shaped placeholder: every id has the same length, so sizes can be checked before the id exists. */
export const PLACEHOLDER_ID = '00000000-0000-0000-0000-000000000000';

/**
 * A declarative payload with a hole for each click token. Every token has the same length, so
 * every target's plaintext has the same length, and the encryption threads fill the holes in.
 */
export interface DeclarativeTemplate {
  parts: string[];
  links: number[];
}

const json = (value: unknown) => JSON.stringify(value);

/**
 * The W3C declarative push message (docs/sending.md): `{"web_push": 8030, "notification": {...},
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
  text += `,"data":${json({ id, data: content.data })}}`;
  if (content.appBadge !== undefined) text += `,"app_badge":${json(content.appBadge)}`;
  text += ',"mutable":true}';
  parts.push(text);
  return { parts, links };
}

export function fillTemplate(template: DeclarativeTemplate, token: (link: number) => string): string {
  let out = template.parts[0] as string;
  template.links.forEach((link, i) => {
    out += token(link) + template.parts[i + 1];
  });
  return out;
}

export function templateBytes(template: DeclarativeTemplate): number {
  return (
    template.parts.reduce((sum, part) => sum + Buffer.byteLength(part, 'utf8'), 0) +
    template.links.length * CLICK_TOKEN_LENGTH
  );
}

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
 * Ids and tokens have fixed lengths, so placeholders measure exactly. Checked at acceptance and
 * again when a scheduled send starts (its app may have switched to declarative since).
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
