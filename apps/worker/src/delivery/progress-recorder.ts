import {
  type AnsweredBatch,
  type AnswerKind,
  type ChunkKey,
  type Database,
  emptyAnsweredBatch,
  recordProgress,
} from '@webpush/db';
import { defaultOutageRetry, type OutageRetryPolicy, retryWhileDatabaseAway } from './database-outage.js';

/** One chunk being sent, as the recorder sees it. */
export interface ChunkProgress {
  /**
   * Notes one answer; it reaches PostgreSQL with the next progress write. True when the process's
   * unwritten answers make a batch: then call `settle` before the next push.
   */
  answer(subscriptionId: string, kind: AnswerKind, retryAfterMs?: number): boolean;
  /**
   * Starts a write of every unwritten answer, first waiting for the write under way if there is one
   * (the lanes' only backpressure). Only after `answer` said so: most pushes need no await here.
   */
  settle(): Promise<void>;
  /** Another run completed the chunk (its lock lapsed and a second worker took it): stop sending. */
  readonly abandoned: boolean;
  /**
   * A progress write carrying this chunk's answers failed for good (refused, or PostgreSQL away for
   * longer than the recorder's retries): stop sending, the job fails and is retried.
   */
  readonly failure: unknown;
  /**
   * Once the chunk's lanes are done: waits until none of its answers is in a write under way, and
   * hands back those not written yet (for the outcome transaction), leaving the recorder.
   */
  finish(): Promise<AnsweredBatch>;
  /** Leaves the recorder without writing what is left (the chunk failed; a re-run sends it again). */
  discard(): void;
}

export interface ProgressRecorderOptions {
  /** Retries of a write that failed because PostgreSQL was unreachable (defaults: `defaultOutageRetry`). */
  outageRetry?: OutageRetryPolicy;
  /** Told of each such retry (to log the first one). */
  onRetry?: (error: unknown, retry: number) => void;
}

interface OpenChunk {
  key: ChunkKey & { appId: string };
  pending: AnsweredBatch;
  /** The write under way that carries some of its answers. */
  writing: Promise<void> | null;
  abandoned: boolean;
  failure: unknown;
}

/**
 * The answers of every chunk a worker process is sending, written to PostgreSQL together, one
 * statement each `batchSize` answers, so that a re-run after a crash sends only what was not recorded.
 * One writer per process, not per chunk: what a SIGKILL can leave unrecorded is bounded by the
 * process's batch (`unrecordedBound` of @webpush/config), and one write replaces a round trip per
 * chunk (docs/performance.md). A write PostgreSQL lost is tried again with the same answers: the
 * rows are folded by subscription id when the chunk completes, so a write twice counts once.
 */
export class ProgressRecorder {
  readonly #db: Database;
  readonly #batchSize: number;
  readonly #open = new Set<OpenChunk>();
  #unwritten = 0;
  #writing: Promise<void> | null = null;
  readonly #outageRetry: OutageRetryPolicy;
  readonly #onRetry: ((error: unknown, retry: number) => void) | undefined;

  constructor(db: Database, batchSize: number, options: ProgressRecorderOptions = {}) {
    this.#db = db;
    this.#batchSize = batchSize;
    this.#outageRetry = options.outageRetry ?? defaultOutageRetry;
    this.#onRetry = options.onRetry;
  }

  open(key: ChunkKey & { appId: string }): ChunkProgress {
    const chunk: OpenChunk = { key, pending: emptyAnsweredBatch(), writing: null, abandoned: false, failure: null };
    this.#open.add(chunk);
    const leave = () => {
      this.#unwritten -= chunk.pending.ids.length;
      this.#open.delete(chunk);
    };
    return {
      answer: (subscriptionId, kind, retryAfterMs = 0) => {
        chunk.pending.ids.push(subscriptionId);
        chunk.pending.kinds.push(kind);
        if (retryAfterMs > chunk.pending.retryAfterMs) chunk.pending.retryAfterMs = retryAfterMs;
        this.#unwritten++;
        return this.#unwritten >= this.#batchSize;
      },
      settle: async () => {
        if (this.#unwritten < this.#batchSize) return;
        while (this.#writing) await this.#writing;
        if (this.#unwritten >= this.#batchSize) this.#write();
      },
      get abandoned() {
        return chunk.abandoned;
      },
      get failure() {
        return chunk.failure;
      },
      finish: async () => {
        // Another chunk's lane may start a write carrying this chunk's answers while it waits.
        while (chunk.writing) await chunk.writing;
        const last = chunk.pending;
        leave();
        return last;
      },
      discard: leave,
    };
  }

  /** Writes every unwritten answer of every open chunk, in one statement. */
  #write(): void {
    const chunks = [...this.#open].filter((chunk) => chunk.pending.ids.length > 0);
    const batches = chunks.map((chunk) => ({ chunk: chunk.key, batch: chunk.pending }));
    for (const chunk of chunks) chunk.pending = emptyAnsweredBatch();
    this.#unwritten = 0;
    const written = retryWhileDatabaseAway(
      () => recordProgress(this.#db, batches),
      this.#outageRetry,
      this.#onRetry,
    ).then(
      (open) => {
        chunks.forEach((chunk, index) => {
          if (open[index] === false) chunk.abandoned = true;
        });
      },
      (error: unknown) => {
        for (const chunk of chunks) chunk.failure ??= error;
      },
    );
    const done = written.finally(() => {
      if (this.#writing === done) this.#writing = null;
      for (const chunk of chunks) if (chunk.writing === done) chunk.writing = null;
    });
    this.#writing = done;
    for (const chunk of chunks) chunk.writing = done;
  }
}
