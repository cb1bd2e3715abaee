import { constants, type PerformanceEntry, PerformanceObserver } from 'node:perf_hooks';
import { waitFor } from '@webpush/testing';
import t, { type Test } from 'tap';
import { bearer, buildTestApp, fakeSubscription, ownerWithKey } from '../helper.js';

// POST /apps/{appId}/subscribers/import: what an import parsed and built is garbage once it has
// answered, and it is collected then, not when the old generation has grown to several times its size.
const ctx = await buildTestApp(t);
const { app } = ctx;

/** Start times (performance.now()) of the full collections from now on. */
function fullCollections(t: Test): number[] {
  const starts: number[] = [];
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      // A `gc` entry's detail says which collection it was (Node's perf_hooks documentation).
      const kind = (entry as PerformanceEntry & { detail?: { kind?: number } | null }).detail?.kind;
      if (kind === constants.NODE_PERFORMANCE_GC_MAJOR) starts.push(entry.startTime);
    }
  });
  observer.observe({ entryTypes: ['gc'] });
  t.teardown(() => observer.disconnect());
  return starts;
}

t.test('an import is followed by a full collection, refused or not', async (t) => {
  const owner = await ownerWithKey(app);
  const starts = fullCollections(t);
  const importing = (payload: object) =>
    app.inject({
      method: 'POST',
      url: `/api/v1/apps/${owner.app.id}/subscribers/import`,
      headers: bearer(owner.user.token),
      payload,
    });

  const sent = performance.now();
  const response = await importing({ subscribers: [fakeSubscription(), fakeSubscription()] });
  t.strictSame(response.json(), { imported: 2, updated: 0, rejected: [] });
  await waitFor(() => starts.some((start) => start > sent), 'a full collection after the import');

  const refusedAt = performance.now();
  t.equal((await importing({ subscribers: [] })).statusCode, 400);
  await waitFor(() => starts.some((start) => start > refusedAt), 'a full collection after the refused import');
});
