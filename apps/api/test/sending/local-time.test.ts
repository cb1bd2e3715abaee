import t from 'tap';
import { localDueAt, planLocalGroups } from '../../src/sending/local-time.js';

// When a `localTime` send reaches each zone (docs/sending.md, "Local time"), daylight saving included.
const at = (iso: string) => Date.parse(iso);
const iso = (ms: number) => new Date(ms).toISOString();

t.test('the first moment at or after acceptance when the zone shows the time', async (t) => {
  t.equal(iso(localDueAt('Asia/Tokyo', 9, 0, at('2026-06-01T00:30:00Z'))), '2026-06-02T00:00:00.000Z', 'tomorrow');
  t.equal(iso(localDueAt('Asia/Tokyo', 9, 0, at('2026-05-31T23:59:00Z'))), '2026-06-01T00:00:00.000Z', 'today');
  t.equal(
    iso(localDueAt('Asia/Tokyo', 9, 0, at('2026-06-01T00:00:30Z'))),
    '2026-06-01T00:00:30.000Z',
    'during that minute: at once',
  );
  t.equal(iso(localDueAt('Asia/Kathmandu', 9, 0, at('2026-06-01T00:00:00Z'))), '2026-06-01T03:15:00.000Z');
});

t.test('daylight saving: the first of a repeated time, the jump for a skipped one', async (t) => {
  // New York falls back on 2026-11-01 at 02:00 EDT: 01:30 happens at 05:30Z (EDT) and 06:30Z (EST).
  t.equal(iso(localDueAt('America/New_York', 1, 30, at('2026-11-01T00:00:00Z'))), '2026-11-01T05:30:00.000Z');
  // New York springs forward on 2026-03-08 at 02:00 EST (07:00Z): 02:30 never shows; the jump does.
  t.equal(iso(localDueAt('America/New_York', 2, 30, at('2026-03-08T00:00:00Z'))), '2026-03-08T07:00:00.000Z');
  // The day after a change the offset is the new one.
  t.equal(iso(localDueAt('America/New_York', 9, 0, at('2026-03-08T20:00:00Z'))), '2026-03-09T13:00:00.000Z');
  t.equal(iso(localDueAt('Europe/London', 9, 0, at('2026-03-29T00:00:00Z'))), '2026-03-29T08:00:00.000Z');
});

t.test('one group per distinct instant; subscriptions without a zone take the app’s', async (t) => {
  const groups = planLocalGroups('09:00', 'Asia/Tokyo', [
    { zone: 'Asia/Tokyo', targets: 3 },
    { zone: 'Asia/Seoul', targets: 2 },
    { zone: null, targets: 4 },
    { zone: 'Europe/Paris', targets: 1 },
  ]);
  t.equal(groups.length, 2);
  const east = groups.find((group) => group.zones.includes('Asia/Tokyo'));
  t.match(east, { zones: ['Asia/Tokyo', 'Asia/Seoul'], unzoned: true, targets: 9 });
  t.equal(
    groups.reduce((sum, group) => sum + group.targets, 0),
    10,
  );
});
