import type { Config } from '@webpush/config';
import type { Database } from '@webpush/db';
import type { ClickTokens, EncryptionPool, PushSender } from '@webpush/push';
import type { Queues } from '@webpush/queue';
import type { Logger } from 'pino';
import type { ProgressRecorder } from './delivery/progress-recorder.js';
import type { VapidKeyring } from './delivery/vapid-keyring.js';
import type { WorkerMetrics } from './ops/metrics.js';

/** What the processors and the reconciler share within one worker process. */
export interface WorkerContext {
  readonly config: Config;
  readonly db: Database;
  readonly queues: Queues;
  readonly sender: PushSender;
  /** Threads that encrypt the chunks' pushes ahead of their lanes (PUSH_CRYPTO_THREADS); null: the sender encrypts. */
  readonly encryption: EncryptionPool | null;
  /** The answers of the chunks being sent, written together (DELIVERY_PROGRESS_BATCH). */
  readonly progress: ProgressRecorder;
  readonly keyring: VapidKeyring;
  /** Signs the click links of declarative payloads; null without ENCRYPTION_KEY (nothing is sent then). */
  readonly clickTokens: ClickTokens | null;
  readonly metrics: WorkerMetrics;
  readonly log: Logger;
}
