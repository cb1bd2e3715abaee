import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSession, exportSubscriptions } from '@webpush/db';
import { generateToken, keyedHash, SESSION_TOKEN_PREFIX } from '@webpush/secrets';
import { type ApiProcess, rssOf } from './api-process.js';
import type { BenchDatabase } from './bench-database.js';
import { jsonLine, spawnSource, waitForLine } from './child.js';
import type { FileJob, FileJobResult } from './file-client.js';

/** (x) GET /apps/{id}/subscribers/export against reading the same rows from the same cursor directly. */
export interface ExportFigures {
  rows: number;
  /** Rows a second through the route, CSV read by an HTTP client (the target: ≥ 50,000). */
  rowsPerSec: number;
  /** The same query's cursor batches read in this process, nothing written: the database's own pace. */
  cursorRowsPerSec: number;
  /** Peak RSS of the API's process (its own, as users run it) during the export, over its RSS before (target < 50 MB). */
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

/**
 * Runs file-client.ts in a process of its own (the job in a file: the import's key pool is larger
 * than one argument may be) and returns what it printed.
 */
async function runFileClient(job: FileJob): Promise<FileJobResult> {
  const dir = await mkdtemp(join(tmpdir(), 'wp-bench-file-'));
  try {
    const path = join(dir, 'job.json');
    await writeFile(path, JSON.stringify(job));
    const child = spawnSource('file-client.ts', [path]);
    const line = await waitForLine(child, (text) => jsonLine(text), 30 * 60_000, `the ${job.kind} client`);
    return line as unknown as FileJobResult;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The API process's RSS every 20 ms from now: its peak over its RSS at the start, once stopped. */
function sampleRss(pid: number) {
  const before = rssOf(pid);
  let peak = before;
  const timer = setInterval(() => {
    peak = Math.max(peak, rssOf(pid));
  }, 20);
  return {
    stop: () => clearInterval(timer),
    growthMb: () => (peak - before) / 2 ** 20,
  };
}

export const TARGET_EXPORT_ROWS_PER_SEC = 50_000;
export const TARGET_EXPORT_RSS_MB = 50;

/**
 * Exports the app's `rows` subscriptions as CSV through the API (a session of the app's owner,
 * made directly), read by a client process of its own that counts the records as they stream in,
 * while the API process's RSS is sampled every 20 ms; then reads the same rows through
 * `exportSubscriptions`' cursor alone, in this process.
 */
export async function measureExport(
  database: BenchDatabase,
  pepper: Buffer,
  userId: string,
  appId: string,
  rows: number,
  api: ApiProcess,
  say: (text: string) => void,
): Promise<ExportFigures> {
  const token = await sessionOf(database, pepper, userId);
  const apiUrl = api.url;
  const rss = sampleRss(api.pid);
  let result: FileJobResult;
  try {
    result = await runFileClient({ kind: 'export', url: `${apiUrl}/api/v1/apps/${appId}/subscribers/export`, token });
  } finally {
    rss.stop();
  }
  if (result.failure) throw new Error(result.failure);
  const { records, seconds } = result;
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
      `${Math.round(figures.cursorRowsPerSec).toLocaleString('en-US')} rows/s); the API process's RSS +${figures.rssGrowthMb.toFixed(1)} MB`,
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
 * the other, sent by a client process of its own (it builds the bodies). Each must import every entry.
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
  api: ApiProcess,
  say: (text: string) => void,
): Promise<ImportFigures> {
  const token = await sessionOf(database, pepper, userId);
  const apiUrl = api.url;
  const rss = sampleRss(api.pid);
  let result: FileJobResult;
  try {
    result = await runFileClient({
      kind: 'import',
      url: `${apiUrl}/api/v1/apps/${appId}/subscribers/import`,
      token,
      entries: options.entries,
      batches: options.batches,
      endpointPrefix: options.endpointPrefix,
      keys: [...options.keys],
    });
  } finally {
    rss.stop();
  }
  if (result.failure) throw new Error(`import ${result.failure}`);
  const totalSeconds = result.seconds;
  const times = [...result.requestMs];
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
      `${totalSeconds.toFixed(1)} s in all; the API process's RSS +${figures.rssGrowthMb.toFixed(1)} MB`,
  );
  return figures;
}
