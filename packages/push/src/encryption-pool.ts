import { Worker } from 'node:worker_threads';
import { moduleThread } from '@webpush/config/threads';
import { AUTH_SECRET_LENGTH, P256_POINT_LENGTH, type SubscriptionKeys } from './encryption.js';
import { type EncryptionAnswer, type EncryptionRequest, KEYS_LENGTH } from './encryption-protocol.js';
import { uuidToBytes } from './payload.js';

/** A body, or why the subscription's keys cannot be encrypted to (not a point on P-256). */
export type EncryptedBody = Buffer | RangeError;

export interface TemplateLinks {
  key: Buffer;
  notificationId: string;
  subscriptionIds: readonly string[];
  slots: readonly number[];
  links: readonly number[];
}

export interface EncryptionPool {
  readonly threads: number;
  /**
   * The request bodies, in order (RFC 8291, a fresh sender key and salt each). Rejects when the
   * thread stops before answering, or the threads could not start (the caller can still encrypt on
   * its own thread). With `links`, `payload` is a template whose holes are filled on the thread with
   * each subscription's click tokens.
   */
  encrypt(payload: Buffer, keys: readonly SubscriptionKeys[], links?: TemplateLinks): Promise<EncryptedBody[]>;
  close(): Promise<void>;
}

interface Pending {
  resolve(bodies: EncryptedBody[]): void;
  reject(error: Error): void;
}

interface Thread {
  worker: Worker;
  pending: Map<number, Pending>;
  /** It has answered once: it started, so a later exit is a crash worth a new thread. */
  answered: boolean;
}

export interface EncryptionPoolOptions {
  threads: number;
  /** A thread failed: the batches it held reject (their callers encrypt them), and the pool goes on. */
  onError?: (error: Error) => void;
  /** Test-only: a plain JavaScript thread to run instead of encryption-thread (one that fails on cue). */
  entry?: URL;
}

/**
 * The thread's garbage is small and short-lived (the ECDH key objects; the bodies live off the
 * heap), but V8 grows a busy isolate's young generation to 32 MB anyway; 2 MB keeps the thread's
 * throughput and lowers the worker's peak RSS (docs/performance.md).
 */
const THREAD_LIMITS = { resourceLimits: { maxYoungGenerationSizeMb: 2 } };

function newThread(entry: URL | undefined): Worker {
  if (entry) return new Worker(entry, THREAD_LIMITS);
  return moduleThread(import.meta.url, 'encryption-thread', THREAD_LIMITS);
}

/**
 * The 16 bytes of each UUID, one after the other, in a buffer of their own (it is transferred). One
 * hex decode of the whole batch is cheaper than a Buffer per id. When any id is not a UUID's 36
 * characters of hex and dashes, each id is decoded alone instead, so that one cannot shift the others.
 */
function packUuids(ids: readonly string[]): Uint8Array<ArrayBuffer> {
  const packed = new Uint8Array(ids.length * 16);
  const hex = ids.join('').replaceAll('-', '');
  const whole = hex.length === packed.length * 2 && ids.every((id) => id.length === 36);
  if (!whole || Buffer.from(packed.buffer).write(hex, 'hex') !== packed.length) {
    ids.forEach((id, i) => {
      packed.set(uuidToBytes(id), i * 16);
    });
  }
  return packed;
}

function unpack({ bodies, bodyLength, lengths, errors }: EncryptionAnswer): EncryptedBody[] {
  const all = Buffer.from(bodies.buffer, bodies.byteOffset, bodies.byteLength);
  const out: EncryptedBody[] = new Array(lengths.length);
  let error = 0;
  for (let i = 0; i < lengths.length; i++) {
    const length = lengths[i] as number;
    out[i] =
      length < 0
        ? new RangeError(errors[error++] ?? 'encryption failed')
        : all.subarray(i * bodyLength, i * bodyLength + length);
  }
  return out;
}

/**
 * Web push encryption on worker threads: nearly all of a push's CPU is RFC 8291's ECDH and HKDF
 * (docs/performance.md), which on the event loop would cap a worker at one core. Batches go in one
 * message each way, so crossing threads is paid per batch, not per push; pool libraries (piscina,
 * workerpool) post a message and a promise per task, the per-push overhead the batching avoids.
 */
export function createEncryptionPool({ threads, onError = () => {}, entry }: EncryptionPoolOptions): EncryptionPool {
  if (!Number.isInteger(threads) || threads < 1) throw new RangeError('an encryption pool needs at least one thread');
  const pool: Thread[] = [];
  let nextId = 0;
  let closed = false;
  /** Set when a thread stops before it ever answered: starting more would fail the same way. */
  let broken: Error | null = null;

  const fail = (thread: Thread, error: Error) => {
    for (const pending of thread.pending.values()) pending.reject(error);
    thread.pending.clear();
  };

  const start = (): Thread => {
    const worker = newThread(entry);
    const thread: Thread = { worker, pending: new Map(), answered: false };
    // Idle threads do not keep the process alive; a thread with work does (see encrypt).
    worker.unref();
    worker.on('message', (answer: EncryptionAnswer) => {
      thread.answered = true;
      const pending = thread.pending.get(answer.id);
      if (!pending) return;
      thread.pending.delete(answer.id);
      if (thread.pending.size === 0) worker.unref();
      pending.resolve(unpack(answer));
    });
    worker.on('error', (error) => {
      if (!closed) onError(error);
    });
    worker.on('exit', (code) => {
      const at = pool.indexOf(thread);
      if (at >= 0) pool.splice(at, 1);
      const error = new Error(`encryption thread exited with code ${code}`);
      if (!closed && !thread.answered) broken ??= error;
      fail(thread, error);
    });
    pool.push(thread);
    return thread;
  };

  // Started now, not with the first batch: a thread takes tens of milliseconds to load, which the
  // first push of the first notification would otherwise wait for.
  while (pool.length < threads) start();

  return {
    threads,
    encrypt(payload, keys, links) {
      if (closed) return Promise.reject(new Error('encryption pool is closed'));
      if (broken) return Promise.reject(broken);
      if (keys.length === 0) return Promise.resolve([]);
      if (keys.some((key) => key.p256dh.length !== P256_POINT_LENGTH || key.auth.length !== AUTH_SECRET_LENGTH)) {
        return Promise.reject(
          new RangeError('keys must be a 65-byte point and a 16-byte secret (decodeSubscriptionKeys)'),
        );
      }
      while (pool.length < threads) start();
      let thread = pool[0] as Thread;
      for (const candidate of pool) if (candidate.pending.size < thread.pending.size) thread = candidate;

      const packed = new Uint8Array(keys.length * KEYS_LENGTH);
      keys.forEach((key, i) => {
        packed.set(key.p256dh, i * KEYS_LENGTH);
        packed.set(key.auth, i * KEYS_LENGTH + key.p256dh.length);
      });
      const id = nextId++;
      // A copy of the payload: a pooled Buffer would be cloned with its whole 8 KiB slab.
      const request: EncryptionRequest = { id, payload: new Uint8Array(payload), keys: packed };
      const transfer: ArrayBuffer[] = [packed.buffer];
      if (links) {
        const subscriptionIds = packUuids(links.subscriptionIds);
        request.links = {
          key: new Uint8Array(links.key),
          notificationId: new Uint8Array(uuidToBytes(links.notificationId)),
          subscriptionIds,
          slots: Int32Array.from(links.slots),
          links: Int32Array.from(links.links),
        };
        transfer.push(subscriptionIds.buffer);
      }
      return new Promise<EncryptedBody[]>((resolve, reject) => {
        if (thread.pending.size === 0) thread.worker.ref();
        thread.pending.set(id, { resolve, reject });
        thread.worker.postMessage(request, transfer);
      });
    },
    async close() {
      closed = true;
      const stopping = pool.splice(0);
      for (const thread of stopping) fail(thread, new Error('encryption pool is closed'));
      await Promise.all(stopping.map((thread) => thread.worker.terminate()));
    },
  };
}
