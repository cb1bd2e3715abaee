import { decodeSubscriptionKeys, type EncryptionPool, type PushTarget, type SubscriptionKeys } from '@webpush/push';
import type { BrowserPayload } from './browser-payload.js';

/** A push target with its subscription id (click links are signed for it). */
export type ChunkTarget = PushTarget & { id: string };

/**
 * A chunk's push bodies, encrypted ahead on the process's EncryptionPool while its lanes send.
 * The chunk is cut in batches, all handed to the pool at once: a small first batch so the first
 * pushes leave soon, then larger ones, so crossing threads costs ~1 µs a push. `body(i)` is the
 * i-th target's body, or undefined when the sender should encrypt it itself: keys that do not
 * decode (the sender refuses them with its own reason) or a thread that failed.
 */
export class ChunkBodies {
  readonly #batches: Promise<(Buffer | undefined)[]>[] = [];

  constructor(
    pool: EncryptionPool,
    payload: BrowserPayload,
    targets: readonly ChunkTarget[],
    readonly firstBatch = 4,
    readonly batch = 16,
  ) {
    for (let start = 0; start < targets.length; ) {
      const end = Math.min(targets.length, start + (start === 0 ? firstBatch : batch));
      this.#batches.push(encryptBatch(pool, payload, targets.slice(start, end)));
      start = end;
    }
  }

  async body(index: number): Promise<Buffer | undefined> {
    const later = index - this.firstBatch;
    const at = later < 0 ? 0 : 1 + Math.floor(later / this.batch);
    const bodies = await this.#batches[at];
    return bodies?.[later < 0 ? index : later % this.batch];
  }
}

async function encryptBatch(
  pool: EncryptionPool,
  payload: BrowserPayload,
  targets: readonly ChunkTarget[],
): Promise<(Buffer | undefined)[]> {
  const keys: SubscriptionKeys[] = [];
  const slots: number[] = [];
  const ids: string[] = [];
  targets.forEach((target, i) => {
    const decoded = decodeSubscriptionKeys(target);
    if (decoded) {
      keys.push(decoded);
      slots.push(i);
      ids.push(target.id);
    }
  });
  const out: (Buffer | undefined)[] = new Array(targets.length).fill(undefined);
  try {
    const bodies = await pool.encrypt(payload.template, keys, payload.linksFor(ids));
    bodies.forEach((body, i) => {
      // A RangeError (a point off the curve) is left to the sender, which refuses it with that reason.
      if (Buffer.isBuffer(body)) out[slots[i] as number] = body;
    });
  } catch {
    // The thread stopped (or the pool closed): the sender encrypts these on the event loop instead.
  }
  return out;
}
