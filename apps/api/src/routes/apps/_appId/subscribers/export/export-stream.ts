import { Readable } from 'node:stream';
import type { Worker } from 'node:worker_threads';
import { moduleThread } from '@webpush/config/threads';
import type { ExportFormat, FromExportThread, ToExportThread } from './export-protocol.js';

/**
 * The thread's heap is kept small so that its garbage (each batch's rows and the strings made of
 * them) is collected within it and never grows the process: V8 otherwise lets an old generation
 * swell to several times what it holds before collecting it. What the thread holds at once is a
 * batch of the cursor and one chunk of the file; the rest is the code it loads (postgres.js, and
 * tsx when run from sources).
 */
const THREAD_LIMITS = { resourceLimits: { maxOldGenerationSizeMb: 32, maxYoungGenerationSizeMb: 4 } };

export interface SubscriberExport {
  databaseUrl: string;
  appId: string;
  format: ExportFormat;
}

/**
 * The export's file as a stream, made on a thread of its own (export-thread.ts) with its own
 * database connection. The stream asks for one chunk at a time when it wants more (the response's
 * backpressure), so at most one chunk is in flight and one ready on the thread. Destroying the
 * stream (the client went away, the app closes) terminates the thread, which closes its
 * connection; the stream's `close` comes once the thread has exited.
 *
 * Chunks cross as strings, not as transferred buffers: a buffer's memory is outside V8's heap, and
 * the event loop, which allocates little while it streams, would collect the dead ones only when
 * they add up to tens of megabytes. A string is garbage of the young generation instead, and the
 * socket writes it from a copy of its own that is freed as soon as the write completes.
 */
export function subscriberExportStream(job: SubscriberExport): Readable {
  const thread: Worker = moduleThread(import.meta.url, 'export-thread', THREAD_LIMITS);
  const tell = (message: ToExportThread) => thread.postMessage(message);
  let asked = false;
  let ended = false;
  const stream = new Readable({
    encoding: 'utf8',
    read() {
      if (asked) return;
      asked = true;
      tell({ kind: 'more' });
    },
    destroy(error, callback) {
      thread.terminate().then(
        () => callback(error),
        () => callback(error),
      );
    },
  });
  thread.on('message', (message: FromExportThread) => {
    if (message.kind === 'chunk') {
      asked = false;
      stream.push(message.text);
    } else if (message.kind === 'end') {
      ended = true;
      stream.push(null);
    } else {
      stream.destroy(new Error(`the subscriber export failed: ${message.message}`));
    }
  });
  // Out of memory within its limits, or any error the thread did not catch: the file is incomplete.
  thread.on('error', (error) => stream.destroy(error));
  thread.on('exit', (code) => {
    if (!ended) stream.destroy(new Error(`the subscriber export thread exited (${code}) before the file was complete`));
  });
  tell({ kind: 'start', ...job });
  return stream;
}
