// One thread of the EncryptionPool (encryption-pool.ts): encrypts one payload for a batch of
// subscriptions and answers with the bodies packed in one transferred buffer.
import { parentPort } from 'node:worker_threads';
import { AUTH_SECRET_LENGTH, ENCRYPTION_OVERHEAD, encryptPayload, P256_POINT_LENGTH } from './encryption.js';
import { type EncryptionAnswer, type EncryptionRequest, KEYS_LENGTH } from './encryption-protocol.js';
import { ClickTokenWriter } from './payload.js';

if (!parentPort) throw new Error('encryption-thread runs only as a worker thread of the EncryptionPool');
const port = parentPort;

port.on('message', ({ id, payload, keys, links }: EncryptionRequest) => {
  // With links, the template is copied once and its holes rewritten for each subscription, with
  // tokens signed here: the event loop that sends the pushes does no HMAC for them.
  const plaintext = links ? Buffer.from(payload) : Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength);
  const tokens = links ? new ClickTokenWriter(links.key, links.notificationId) : null;
  const count = keys.byteLength / KEYS_LENGTH;
  // Every body of one payload has the same length; a key that fails leaves its slot unused.
  const bodyLength = ENCRYPTION_OVERHEAD + plaintext.length;
  const bodies = new Uint8Array(count * bodyLength);
  const lengths = new Int32Array(count);
  const errors: string[] = [];
  for (let i = 0; i < count; i++) {
    const start = keys.byteOffset + i * KEYS_LENGTH;
    const p256dh = Buffer.from(keys.buffer, start, P256_POINT_LENGTH);
    const auth = Buffer.from(keys.buffer, start + P256_POINT_LENGTH, AUTH_SECRET_LENGTH);
    if (links && tokens) {
      const subscriptionId = links.subscriptionIds.subarray(i * 16, i * 16 + 16);
      for (let slot = 0; slot < links.slots.length; slot++) {
        tokens.write(plaintext, links.slots[slot] as number, subscriptionId, links.links[slot] as number);
      }
    }
    try {
      const body = encryptPayload(plaintext, { p256dh, auth });
      bodies.set(body, i * bodyLength);
      lengths[i] = body.length;
    } catch (error) {
      // encryptPayload throws RangeError for a key off the curve; the caller refuses that push.
      lengths[i] = -1;
      errors.push(error instanceof Error ? error.message : String(error));
    }
  }
  const answer: EncryptionAnswer = { id, bodies, bodyLength, lengths, errors };
  port.postMessage(answer, [bodies.buffer, lengths.buffer]);
});
