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
  const token = generateToken(SESSION_TOKEN_PREFIX);
  await createSession(
    database.handle.db,
    { userId, tokenHash: keyedHash(pepper, token), expiresAt: new Date(Date.now() + 3_600_000) },
    null,
  );
  global.gc?.();
  const rssBefore = process.memoryUsage.rss();
  let peak = rssBefore;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss());
  }, 20);
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
    clearInterval(sampler);
  }
  const seconds = (performance.now() - started) / 1000;
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
    rssGrowthMb: (peak - rssBefore) / 2 ** 20,
  };
  say(
    `export: ${exported.toLocaleString('en-US')} rows as CSV in ${seconds.toFixed(2)} s → ` +
      `${Math.round(figures.rowsPerSec).toLocaleString('en-US')} rows/s (the cursor alone: ` +
      `${Math.round(figures.cursorRowsPerSec).toLocaleString('en-US')} rows/s); RSS +${figures.rssGrowthMb.toFixed(1)} MB`,
  );
  return figures;
}
