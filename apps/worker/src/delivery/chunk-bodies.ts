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
export class ChunkBodies<T extends ChunkTarget = ChunkTarget> {
  readonly #batches: Promise<(Buffer | undefined)[]>[] = [];

  /** `payload`: what every target receives, or each target's own (a send with translations). */
  constructor(
    pool: EncryptionPool,
    payload: BrowserPayload | ((target: T) => BrowserPayload),
    targets: readonly T[],
    readonly firstBatch = 4,
    readonly batch = 16,
  ) {
    const payloadOf = typeof payload === 'function' ? payload : () => payload;
    for (let start = 0; start < targets.length; ) {
      const end = Math.min(targets.length, start + (start === 0 ? firstBatch : batch));
      this.#batches.push(encryptBatch(pool, payloadOf, targets.slice(start, end)));
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

interface PayloadGroup {
  keys: SubscriptionKeys[];
  slots: number[];
  ids: string[];
}

/** One message to the pool per distinct payload in the batch: one, unless the send has translations. */
async function encryptBatch<T extends ChunkTarget>(
  pool: EncryptionPool,
  payloadOf: (target: T) => BrowserPayload,
  targets: readonly T[],
): Promise<(Buffer | undefined)[]> {
  const groups = new Map<BrowserPayload, PayloadGroup>();
  targets.forEach((target, i) => {
    const decoded = decodeSubscriptionKeys(target);
    if (!decoded) return;
    const payload = payloadOf(target);
    let group = groups.get(payload);
    if (!group) {
      group = { keys: [], slots: [], ids: [] };
      groups.set(payload, group);
    }
    group.keys.push(decoded);
    group.slots.push(i);
    group.ids.push(target.id);
  });
  const out: (Buffer | undefined)[] = new Array(targets.length).fill(undefined);
  await Promise.all(
    [...groups].map(async ([payload, { keys, slots, ids }]) => {
      try {
        const bodies = await pool.encrypt(payload.template, keys, payload.linksFor(ids));
        bodies.forEach((body, i) => {
          // A RangeError (a point off the curve) is left to the sender, which refuses it with that reason.
          if (Buffer.isBuffer(body)) out[slots[i] as number] = body;
        });
      } catch {
        // The thread stopped (or the pool closed): the sender encrypts these on the event loop instead.
      }
    }),
  );
  return out;
}
