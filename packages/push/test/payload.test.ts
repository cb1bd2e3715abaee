import { createECDH, randomBytes, randomUUID } from 'node:crypto';
import { decryptPushMessage, type SubscriberKeys } from '@webpush/testing';
import t from 'tap';
import type { SubscriptionKeys } from '../src/encryption.js';
import { createEncryptionPool } from '../src/encryption-pool.js';
import {
  CLICK_TOKEN_LENGTH,
  ClickTokens,
  ClickTokenWriter,
  declarativeTemplate,
  fillTemplate,
  legacyPayload,
  templateBytes,
  templateSlots,
  uuidToBytes,
} from '../src/payload.js';

const content = {
  title: 'Sale "now" 👋',
  body: 'Half price\n',
  icon: 'https://shop.example/i.png',
  actions: [
    { action: 'buy', title: 'Buy', url: 'https://shop.example/buy', icon: 'https://shop.example/c.png' },
    { action: 'later', title: 'Later' },
  ],
  tag: 't',
  renotify: true,
  data: { k: 'ü' },
};

t.test('click tokens: fixed length, verify only unaltered and under the same key', async (t) => {
  const key = randomBytes(32);
  const tokens = ClickTokens.fromEncryptionKey(key);
  const target = { notificationId: randomUUID(), subscriptionId: randomUUID(), link: 2 };
  const token = tokens.sign(target);
  t.equal(token.length, CLICK_TOKEN_LENGTH);
  t.match(token, /^[A-Za-z0-9_-]+$/);
  t.strictSame(tokens.verify(token), target);
  t.equal(ClickTokens.fromEncryptionKey(randomBytes(32)).verify(token), null, 'another key');
  for (let at = 0; at < token.length; at++) {
    const altered = `${token.slice(0, at)}${token[at] === 'A' ? 'B' : 'A'}${token.slice(at + 1)}`;
    if (tokens.verify(altered) !== null) t.fail(`a token altered at ${at} verified`);
  }
  t.equal(tokens.verify(token.slice(1)), null, 'too short');
  t.equal(tokens.verify(`${token}A`), null, 'too long');
  t.equal(tokens.verify('!'.repeat(CLICK_TOKEN_LENGTH)), null, 'not base64url');
  t.not(tokens.sign({ ...target, link: 1 }), token, 'bound to the link');
});

t.test('the threads’ token writer writes exactly the tokens ClickTokens signs', async (t) => {
  // Its HMAC is SHA-256 compressions of its own (sha256-block.ts): checked against node:crypto's.
  for (let round = 0; round < 50; round++) {
    const tokens = ClickTokens.fromEncryptionKey(randomBytes(32));
    const notificationId = randomUUID();
    const writer = new ClickTokenWriter(tokens.key, uuidToBytes(notificationId));
    const into = Buffer.alloc(CLICK_TOKEN_LENGTH + 10, '.');
    // One writer serves every subscription and link of a batch: nothing of one token stays in the next.
    for (const subscriptionId of [randomUUID(), randomUUID()]) {
      for (const link of [0, 1, 2, 255]) {
        writer.write(into, 5, uuidToBytes(subscriptionId), link);
        const token = into.toString('latin1', 5, 5 + CLICK_TOKEN_LENGTH);
        t.equal(token, tokens.sign({ notificationId, subscriptionId, link }));
        t.strictSame(tokens.verify(token), { notificationId, subscriptionId, link });
      }
    }
    t.equal(into.toString('latin1', 0, 5), '.....', 'nothing written before the hole');
    t.equal(into.toString('latin1', 5 + CLICK_TOKEN_LENGTH), '.....', 'nothing written after it');
  }
  t.throws(() => new ClickTokenWriter(randomBytes(65), randomBytes(16)), RangeError, 'a key over one block');
});

t.test('the declarative template measures exactly what is delivered', async (t) => {
  const id = randomUUID();
  const template = declarativeTemplate(content, id, 'https://push.example/c/');
  const tokens = ClickTokens.fromEncryptionKey(randomBytes(32));
  const subscriptionId = randomUUID();
  const filled = fillTemplate(template, (link) => tokens.sign({ notificationId: id, subscriptionId, link }));
  t.equal(Buffer.byteLength(filled), templateBytes(template));
  const message = JSON.parse(filled);
  t.equal(message.web_push, 8030);
  t.equal(message.mutable, true);
  t.strictSame(message.notification.data, { id, data: content.data });
  t.equal(template.links.length, 3, 'the notification and each button');
  const slots = templateSlots(template);
  const bytes = Buffer.from(filled);
  template.links.forEach((link, i) => {
    const token = bytes.subarray(slots[i], (slots[i] as number) + CLICK_TOKEN_LENGTH).toString();
    t.strictSame(tokens.verify(token), { notificationId: id, subscriptionId, link });
  });
  t.equal(
    legacyPayload(content, id),
    JSON.stringify({
      title: content.title,
      body: content.body,
      icon: content.icon,
      actions: content.actions,
      renotify: true,
      tag: 't',
      data: content.data,
      id,
    }),
  );
});

t.test('the pool signs each target’s tokens into the template on its threads', async (t) => {
  const pool = createEncryptionPool({ threads: 2 });
  t.teardown(() => pool.close());
  const id = randomUUID();
  const template = declarativeTemplate(content, id, 'https://push.example/c/');
  const slots = templateSlots(template);
  const tokens = ClickTokens.fromEncryptionKey(randomBytes(32));
  const subscribers = Array.from({ length: 9 }, () => {
    const ecdh = createECDH('prime256v1');
    ecdh.generateKeys();
    const auth = randomBytes(16);
    const keys: SubscriberKeys = { privateKey: ecdh.getPrivateKey(), publicKey: ecdh.getPublicKey(), auth };
    const subscription: SubscriptionKeys = { p256dh: ecdh.getPublicKey(), auth };
    return { keys, subscription, id: randomUUID() };
  });
  const expected = subscribers.map((s) =>
    fillTemplate(template, (link) => tokens.sign({ notificationId: id, subscriptionId: s.id, link })),
  );
  const placeholder = Buffer.from(fillTemplate(template, () => '-'.repeat(CLICK_TOKEN_LENGTH)));
  const bodies = await pool.encrypt(
    placeholder,
    subscribers.map((s) => s.subscription),
    {
      key: tokens.key,
      notificationId: id,
      subscriptionIds: subscribers.map((s) => s.id),
      slots,
      links: template.links,
    },
  );
  bodies.forEach((body, i) => {
    if (!Buffer.isBuffer(body)) throw new Error(`body ${i} is ${String(body)}`);
    t.equal(decryptPushMessage(body, (subscribers[i] as (typeof subscribers)[number]).keys), expected[i]);
  });
});

t.test('a subscription id that is not a UUID gets the same token from the pool as from ClickTokens', async (t) => {
  const pool = createEncryptionPool({ threads: 1 });
  t.teardown(() => pool.close());
  const id = randomUUID();
  const template = declarativeTemplate({ title: 'T', body: 'B' }, id, 'https://push.example/c/');
  const tokens = ClickTokens.fromEncryptionKey(randomBytes(32));
  const subscribers = ['not-a-uuid', randomUUID(), randomUUID().toUpperCase(), randomUUID()].map((subscriptionId) => {
    const ecdh = createECDH('prime256v1');
    ecdh.generateKeys();
    const auth = randomBytes(16);
    return {
      id: subscriptionId,
      keys: { privateKey: ecdh.getPrivateKey(), publicKey: ecdh.getPublicKey(), auth } as SubscriberKeys,
      subscription: { p256dh: ecdh.getPublicKey(), auth } as SubscriptionKeys,
    };
  });
  const links = {
    key: tokens.key,
    notificationId: id,
    subscriptionIds: subscribers.map((s) => s.id),
    slots: templateSlots(template),
    links: template.links,
  };
  const placeholder = Buffer.from(fillTemplate(template, () => '-'.repeat(CLICK_TOKEN_LENGTH)));
  for (const batch of [subscribers, subscribers.slice(1)]) {
    const bodies = await pool.encrypt(
      placeholder,
      batch.map((s) => s.subscription),
      { ...links, subscriptionIds: batch.map((s) => s.id) },
    );
    bodies.forEach((body, i) => {
      const subscriber = batch[i] as (typeof subscribers)[number];
      if (!Buffer.isBuffer(body)) throw new Error(`body ${i} is ${String(body)}`);
      const expected = fillTemplate(template, (link) =>
        tokens.sign({ notificationId: id, subscriptionId: subscriber.id, link }),
      );
      t.equal(decryptPushMessage(body, subscriber.keys), expected, `${subscriber.id} of a batch of ${batch.length}`);
    });
  }
});
