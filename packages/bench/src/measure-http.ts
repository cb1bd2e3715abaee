import { jsonLine, runToCompletion, spawnSource } from './child.js';
import type { HttpLoad, HttpLoadResult } from './http-load.js';

/** One round of http-load.ts against `load.url`; throws unless every answer had `expectStatus`. */
export async function measureRequestRate(load: HttpLoad, expectStatus: number): Promise<HttpLoadResult> {
  const child = spawnSource('http-load.ts', [JSON.stringify(load)]);
  const stdout = await runToCompletion(child, (load.seconds + 31) * 1000, `load on ${load.url}`);
  const result = stdout
    .split('\n')
    .map(jsonLine)
    .find((value) => typeof value?.requests === 'number') as HttpLoadResult | undefined;
  if (!result) throw new Error(`load on ${load.url} printed no result`);
  const unexpected = Object.entries(result.statuses).filter(([status]) => Number(status) !== expectStatus);
  if (result.errors > 0 || unexpected.length > 0 || result.requests === 0) {
    throw new Error(
      `load on ${load.url}: ${result.requests} answered, statuses ${JSON.stringify(result.statuses)}, ` +
        `${result.errors} errors${result.firstError ? ` (${result.firstError})` : ''}`,
    );
  }
  return result;
}
