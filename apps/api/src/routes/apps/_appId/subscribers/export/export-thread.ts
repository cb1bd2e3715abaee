// The thread of one subscriber export (export-stream.ts): reads the app's subscriptions from a cursor
// on a connection of its own and sends the file, one chunk a batch. Rows and the strings made of them
// are garbage as soon as a batch is written out; in this thread's small heap they are collected
// within it, where in the API's own they were promoted while waiting for the socket.
import { parentPort } from 'node:worker_threads';
import {
  type ExportedSubscription,
  type ExportedSubscriptionWithKeys,
  exportSubscriptionKeys,
  exportSubscriptions,
  openExportConnection,
} from '@webpush/db/subscription-export';
import { csvRecord } from './csv.js';
import type { ExportJob, FromExportThread, ToExportThread } from './export-protocol.js';

if (!parentPort) throw new Error('export-thread runs only as a worker thread of a subscriber export');
const port = parentPort;

const CSV_HEADER = ['id', 'endpoint', 'status', 'uid', 'tags', 'language', 'timeZone', 'createdAt'];

function csvBatch(rows: readonly ExportedSubscription[]): string {
  let chunk = '';
  for (const row of rows) {
    chunk += csvRecord([
      row.id,
      row.endpoint,
      row.status,
      row.uid,
      JSON.stringify(row.tags),
      row.language,
      row.timeZone,
      row.createdAt,
    ]);
  }
  return chunk;
}

function jsonLinesBatch(rows: readonly ExportedSubscriptionWithKeys[]): string {
  let chunk = '';
  for (const row of rows) {
    chunk += `${JSON.stringify({
      endpoint: row.endpoint,
      keys: { p256dh: row.p256dh, auth: row.auth },
      ...(row.uid === null ? {} : { uid: row.uid }),
      tags: row.tags,
      vapidPublicKey: row.vapidPublicKey,
      createdAt: row.createdAt,
    })}\n`;
  }
  return chunk;
}

let credits = 0;
let creditArrived: (() => void) | null = null;

async function takeCredit(): Promise<void> {
  while (credits === 0) {
    await new Promise<void>((resolve) => {
      creditArrived = resolve;
    });
  }
  credits--;
}

const post = (message: FromExportThread) => port.postMessage(message);

/**
 * Each chunk is made as soon as its batch is read, then waits for the route's leave to go: while
 * the response writes one chunk, the next is read and ready, and no more than that is held.
 */
async function send(text: string): Promise<void> {
  await takeCredit();
  post({ kind: 'chunk', text });
}

async function run({ databaseUrl, appId, format }: ExportJob): Promise<void> {
  const connection = openExportConnection(databaseUrl);
  try {
    if (format === 'csv') {
      await send(csvRecord(CSV_HEADER));
      for await (const rows of exportSubscriptions(connection.source, appId)) await send(csvBatch(rows));
    } else {
      for await (const rows of exportSubscriptionKeys(connection.source, appId)) await send(jsonLinesBatch(rows));
    }
  } finally {
    await connection.close();
  }
  post({ kind: 'end' });
}

port.on('message', (message: ToExportThread) => {
  if (message.kind === 'more') {
    credits++;
    creditArrived?.();
    creditArrived = null;
    return;
  }
  run(message).catch((error: unknown) => {
    post({ kind: 'failed', message: error instanceof Error ? error.message : String(error) });
  });
});
