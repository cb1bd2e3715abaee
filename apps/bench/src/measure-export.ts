import { createSession, exportSubscriptions } from '@webpush/db';
import { generateToken, keyedHash, SESSION_TOKEN_PREFIX } from '@webpush/secrets';
import type { BenchDatabase } from './bench-database.js';

/** (x) GET /apps/{id}/subscribers/export against reading the same rows from the same cursor directly. */
export interface ExportFigures {
  rows: number;
  /** Rows a second through the route, CSV read by an HTTP client (the target: ≥ 50,000). */
  rowsPerSec: number;
  /** The same query's cursor batches read in this process, nothing written: the database's own pace. */
  cursorRowsPerSec: number;
  /** Peak RSS of this process (where the API runs) during the export, over its RSS before (target < 50 MB). */
  rssGrowthMb: number;
}

/** A session of `userId`, made directly (its keyed hash stored as the API stores one): its token. */
async function sessionOf(database: BenchDatabase, pepper: Buffer, userId: string): Promise<string> {
  const token = generateToken(SESSION_TOKEN_PREFIX);
  await createSession(
    database.handle.db,
    { userId, tokenHash: keyedHash(pepper, token), expiresAt: new Date(Date.now() + 3_600_000) },
    null,
  );
  return token;
}

/** This process's RSS every 20 ms from now: its peak over the RSS at the start, once stopped. */
function sampleRss() {
  global.gc?.();
  const before = process.memoryUsage.rss();
  const heapBefore = process.memoryUsage().heapUsed;
  let peak = before;
  let heapPeak = heapBefore;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss());
    heapPeak = Math.max(heapPeak, process.memoryUsage().heapUsed);
  }, 20);
  return {
    stop: () => clearInterval(timer),
    growthMb: () => (peak - before) / 2 ** 20,
    /**
     * The JavaScript heap's growth at its peak, and what of it is still held once a full GC has run
     * (with `--expose-gc`; otherwise null): garbage not yet collected, or memory kept.
     */
    heap: () => {
      const gc = (global as { gc?: () => void }).gc;
      gc?.();
      const retained = gc ? (process.memoryUsage().heapUsed - heapBefore) / 2 ** 20 : null;
      return { peakMb: (heapPeak - heapBefore) / 2 ** 20, retainedMb: retained };
    },
  };
}

export const TARGET_EXPORT_ROWS_PER_SEC = 50_000;
export const TARGET_EXPORT_RSS_MB = 50;

/**
 * Exports the app's `rows` subscriptions as CSV through the API (a session of the app's owner,
 * made directly), counting the records as they stream in, while this process's RSS is sampled
 * every 20 ms; then reads the same rows through `exportSubscriptions`' cursor alone.
 */
export async function measureExport(
  database: BenchDatabase,
  pepper: Buffer,
  userId: string,
  appId: string,
  rows: number,
  apiUrl: string,
  say: (text: string) => void,
): Promise<ExportFigures> {
  const token = await sessionOf(database, pepper, userId);
  const rss = sampleRss();
  const started = performance.now();
  let records = 0;
  try {
    const response = await fetch(`${apiUrl}/api/v1/apps/${appId}/subscribers/export`, {
      headers: { authorization: `Bearer ${token}` },
    });
    if (response.status !== 200 || !response.body) throw new Error(`export answered ${response.status}`);
    // A record ends with CRLF; no seeded field holds one.
    for await (const chunk of response.body as AsyncIterable<Uint8Array>) {
      for (let i = 0; i < chunk.length; i++) if (chunk[i] === 10) records++;
    }
  } finally {
    rss.stop();
  }
  const seconds = (performance.now() - started) / 1000;
  const heap = rss.heap();
  const exported = records - 1; // the header
  if (exported !== rows) throw new Error(`export streamed ${exported} rows of ${rows}`);

  const cursorStarted = performance.now();
  let read = 0;
  for await (const batch of exportSubscriptions(database.handle.db, appId)) read += batch.length;
  const cursorSeconds = (performance.now() - cursorStarted) / 1000;

  const figures: ExportFigures = {
    rows: exported,
    rowsPerSec: exported / seconds,
    cursorRowsPerSec: read / cursorSeconds,
    rssGrowthMb: rss.growthMb(),
  };
  say(
    `export: ${exported.toLocaleString('en-US')} rows as CSV in ${seconds.toFixed(2)} s → ` +
      `${Math.round(figures.rowsPerSec).toLocaleString('en-US')} rows/s (the cursor alone: ` +
      `${Math.round(figures.cursorRowsPerSec).toLocaleString('en-US')} rows/s); RSS +${figures.rssGrowthMb.toFixed(1)} MB ` +
      `(JavaScript heap at its peak +${heap.peakMb.toFixed(1)} MB, after a full GC ${heap.retainedMb === null ? 'not measured: run with --expose-gc' : `+${heap.retainedMb.toFixed(1)} MB`})`,
  );
  return figures;
}

/** (i) POST /apps/{id}/subscribers/import, batches of BENCH_IMPORT_ENTRIES into an empty app. */
export interface ImportFigures {
  entriesPerRequest: number;
  batches: number;
  /** Median time of one request (the target: ≤ 2,000 ms for 10,000 entries). */
  requestMs: number;
  entriesPerSec: number;
  /** All batches, one after the other: what a file of entries × batches lines takes through the dashboard. */
  totalSeconds: number;
  /** Peak RSS of the API's process during the batches, over its RSS before (target < 100 MB). */
  rssGrowthMb: number;
}

export const TARGET_IMPORT_MS = 2_000;
export const TARGET_IMPORT_RSS_MB = 100;

/**
 * Imports `batches` requests of `entries` new subscriptions each (endpoints at the stand-in, keys
 * from the bench's pool) into an app of their own, as the dashboard sends a file: one request after
 * the other. Each must import every entry.
 */
export async function measureImport(
  database: BenchDatabase,
  pepper: Buffer,
  userId: string,
  appId: string,
  options: {
    entries: number;
    batches: number;
    endpointPrefix: string;
    keys: readonly { p256dh: string; auth: string }[];
  },
  apiUrl: string,
  say: (text: string) => void,
): Promise<ImportFigures> {
  const token = await sessionOf(database, pepper, userId);
  const rss = sampleRss();
  const times: number[] = [];
  const started = performance.now();
  try {
    for (let batch = 0; batch < options.batches; batch++) {
      const subscribers = Array.from({ length: options.entries }, (_, i) => {
        const n = batch * options.entries + i;
        const key = options.keys[n % options.keys.length] as { p256dh: string; auth: string };
        return { endpoint: `${options.endpointPrefix}import-${n}`, keys: { p256dh: key.p256dh, auth: key.auth } };
      });
      const body = JSON.stringify({ subscribers });
      const requestStarted = performance.now();
      const response = await fetch(`${apiUrl}/api/v1/apps/${appId}/subscribers/import`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body,
      });
      const answer = (await response.json()) as { imported?: number; rejected?: unknown[] };
      times.push(performance.now() - requestStarted);
      if (response.status !== 200 || answer.imported !== options.entries) {
        throw new Error(`import batch ${batch}: ${response.status} ${JSON.stringify(answer).slice(0, 300)}`);
      }
    }
  } finally {
    rss.stop();
  }
  const totalSeconds = (performance.now() - started) / 1000;
  times.sort((a, b) => a - b);
  const requestMs = times[Math.floor((times.length - 1) / 2)] ?? Number.NaN;
  const figures: ImportFigures = {
    entriesPerRequest: options.entries,
    batches: options.batches,
    requestMs,
    entriesPerSec: options.entries / (requestMs / 1000),
    totalSeconds,
    rssGrowthMb: rss.growthMb(),
  };
  say(
    `import: ${options.batches} requests of ${options.entries.toLocaleString('en-US')} entries, median ` +
      `${requestMs.toFixed(0)} ms a request (${Math.round(figures.entriesPerSec).toLocaleString('en-US')} entries/s), ` +
      `${totalSeconds.toFixed(1)} s in all; RSS +${figures.rssGrowthMb.toFixed(1)} MB`,
  );
  return figures;
}
