import type { FastifyInstance } from 'fastify';
import { type BenchApp, type BenchDatabase, seededEndpointPrefix } from './bench-database.js';
import { measureRequestRate, type RequestRate, startPlainFastify, startPlainServer } from './measure-http.js';
import type { BenchOptions } from './options.js';
import { median } from './stats.js';

/** The figures of the events phase: POST /events against a plain route, and its database writes. */
export interface EventFigures {
  /** POST /events, `rounds` rounds of `seconds` on `concurrency` keep-alive connections; the median round. */
  eventsPerSec: number;
  /** A plain Fastify route parsing the same bearer header, same load, same process: the target's baseline. */
  plainFastifyReqPerSec: number;
  /** Median of the per-round ratios POST /events ÷ plain Fastify route (rounds interleaved): the target's figure. */
  vsPlainFastify: number;
  /** A plain node:http server parsing the same bearer header, same load, same process (a stricter baseline). */
  plainNodeReqPerSec: number;
  /** Median of the per-round ratios POST /events ÷ plain node:http (rounds interleaved). */
  vsPlain: number;
  roundsPerSec: number[];
  /**
   * The same rounds with each request another subscription's event, in turn over `distinctEvents`
   * subscriptions the notification was pushed to: the flush (running meanwhile) then has a row a
   * request to check in PostgreSQL, where the rounds above repeat one event, which it counts once.
   */
  manySubscriptionsPerSec: number;
  /** Median of the per-round ratios of those rounds ÷ plain Fastify route (reported, not the target). */
  manySubscriptionsVsPlainFastify: number;
  /**
   * The same rounds with a `converted` event carrying a value (the conversions feature), interleaved
   * with the `shown` rounds: the median of the per-round ratios converted ÷ shown (target ≥ 0.9).
   */
  convertedPerSec: number;
  convertedVsShown: number;
  /** CPU µs of this process (the API) a POST /events, and of the plain node:http server a request; medians of the rounds. */
  apiMicrosPerRequest: number;
  plainMicrosPerRequest: number;
  connections: number;
  /** Distinct events (one subscription each, one notification) posted, then flushed, for the write count. */
  distinctEvents: number;
  /** SQL statements that wrote to `notification_events` (one per flushed batch). */
  insertStatements: number;
  /** Times the notification's row was updated (one per flushed batch that had news for it). */
  notificationRowUpdates: number;
  /** (insert statements + notification row updates) per 1,000 events; a row update per event would be 1,000. */
  writesPer1000: number;
  /** The count the API reports afterwards: equals `distinctEvents` when nothing was lost. */
  counted: number;
}

const DISTINCT_EVENTS = 10_000;
/** Subscriptions a delivery chunk holds: the worker's DELIVERY_CHUNK_SIZE default. */
const CHUNK_SIZE = 500;

/** CPU µs this process spent a request in a round (the API's, or the plain server's). */
const microsPerRequest = (round: RequestRate) => (round.cpu.bench * 1e6) / round.perSecond;

/**
 * The decorators of the API this phase uses. @webpush/api's published types (dist/app.d.ts) do not
 * carry its plugins' `declare module 'fastify'` augmentations, so they are named here.
 */
interface EngagementApi {
  config: { redisKeyPrefix: string };
  redis: { llen(key: string): Promise<number> };
  engagement: { flush(): Promise<unknown> };
}

/** Flushes until the Redis buffer is empty (the API's own timer may hold the flush lock for a moment). */
async function drain(api: EngagementApi, listKey: string): Promise<void> {
  for (let attempt = 0; (await api.redis.llen(listKey)) > 0; attempt++) {
    if (attempt > 600) throw new Error('the engagement buffer does not drain');
    await api.engagement.flush();
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** POSTs every body to `url` on `lanes` concurrent keep-alive lanes; throws unless all are 202. */
async function postAll(url: string, secret: string, bodies: string[], lanes: number): Promise<void> {
  let next = 0;
  const lane = async () => {
    for (let index = next++; index < bodies.length; index = next++) {
      const response = await fetch(url, {
        method: 'POST',
        headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
        body: bodies[index],
      });
      await response.arrayBuffer();
      if (response.status !== 202) throw new Error(`POST /events answered ${response.status}`);
    }
  };
  await Promise.all(Array.from({ length: lanes }, lane));
}

/**
 * (g) Engagement events: the accepted rate of POST /events (API-key auth from the instance's cache,
 * one Redis script for the rate limit and the buffer; the API's own 1 s flush timer runs meanwhile)
 * against a plain node:http server and a plain Fastify route under the same load, then the database writes of `DISTINCT_EVENTS` distinct events, counted by
 * PostgreSQL triggers installed for that step only.
 */
export async function measureEvents(
  fastify: FastifyInstance,
  apiUrl: string,
  database: BenchDatabase,
  /** The app, with the subscriptions `seedSubscriptions` made for the push stand-in at `pushOrigin`. */
  app: BenchApp,
  pushOrigin: string,
  options: Pick<BenchOptions, 'httpSeconds' | 'httpConcurrency' | 'httpRuns'>,
  say: (text: string) => void,
): Promise<EventFigures> {
  const api = fastify as unknown as EngagementApi;
  const { sql } = database.handle;
  const load = { seconds: options.httpSeconds, concurrency: options.httpConcurrency, rounds: options.httpRuns };
  const [notification] = await sql<{ id: string }[]>`
    insert into notifications (app_id, payload, ttl, urgency, target_kind, targets, status, completed_at)
    values (${app.id}, ${JSON.stringify({ title: 'Bench', body: 'events' })}::jsonb, 86400, 'normal', 'all', 0, 'completed', now())
    returning id`;
  if (!notification) throw new Error('could not create the bench notification');
  // The events name the first DISTINCT_EVENTS of the app's seeded subscriptions.
  const endpointPrefix = seededEndpointPrefix(pushOrigin);
  const numbered = Array.from({ length: DISTINCT_EVENTS }, (_, index) => `${endpointPrefix}${index + 1}`);
  const targets = await sql<{ id: string; endpoint: string }[]>`
    select id, endpoint from subscriptions where app_id = ${app.id} and endpoint = any(${numbered}::text[]) order by id`;
  const endpoints = targets.map((row) => row.endpoint);
  const [first] = endpoints;
  if (!first || endpoints.length !== DISTINCT_EVENTS) throw new Error('the events phase needs more subscriptions');
  // Engagement counts only for subscriptions a notification was pushed to: first-attempt delivery
  // chunks holding them, of DELIVERY_CHUNK_SIZE's default size, as the fan-out writes them.
  await sql`insert into notification_chunks (notification_id, app_id, notification_created_at, first_subscription_id,
      attempt, subscription_ids, last_subscription_id)
    select ${notification.id}, n.app_id, n.created_at, min(s.id::text)::uuid, 1, array_agg(s.id order by s.id),
      max(s.id::text)::uuid
    from (select id, (row_number() over (order by id) - 1) / ${CHUNK_SIZE} as chunk
      from unnest(${targets.map((row) => row.id)}::uuid[]) as s(id)) as s
    join notifications n on n.id = ${notification.id}
    group by s.chunk, n.app_id, n.created_at`;
  const listKey = `${api.config.redisKeyPrefix}:engagement:buffer`;

  const bare = await startPlainFastify();
  const plain = await startPlainServer();
  const body = JSON.stringify({ notificationId: notification.id, endpoint: first, type: 'shown' });
  const request = (url: string, headers: Record<string, string>) => ({
    url,
    headers,
    body,
    concurrency: load.concurrency,
    seconds: load.seconds,
  });
  const eventRounds: RequestRate[] = [];
  const convertedRounds: RequestRate[] = [];
  const convertedBody = JSON.stringify({
    notificationId: notification.id,
    endpoint: first,
    type: 'converted',
    value: 12.5,
  });
  const manyRounds: RequestRate[] = [];
  const manySubscriptions = {
    template: JSON.stringify({ notificationId: notification.id, endpoint: `${endpointPrefix}{n}`, type: 'shown' }),
    count: DISTINCT_EVENTS,
  };
  const bareRounds: RequestRate[] = [];
  const plainRounds: RequestRate[] = [];
  const authorization = { authorization: `Bearer ${app.secret}` };
  try {
    // One unmeasured second each first: the rounds compare warm code (JIT, the key cache, connections).
    for (const url of [plain.url, bare.url, `${apiUrl}/api/v1/events`]) {
      await measureRequestRate({ ...request(url, authorization), seconds: 1 }, 202);
    }
    for (let index = 0; index < load.rounds; index++) {
      plainRounds.push(await measureRequestRate(request(plain.url, authorization), 202));
      bareRounds.push(await measureRequestRate(request(bare.url, authorization), 202));
      eventRounds.push(await measureRequestRate(request(`${apiUrl}/api/v1/events`, authorization), 202));
      convertedRounds.push(
        await measureRequestRate({ ...request(`${apiUrl}/api/v1/events`, authorization), body: convertedBody }, 202),
      );
      manyRounds.push(
        await measureRequestRate(
          { ...request(`${apiUrl}/api/v1/events`, authorization), numbered: manySubscriptions },
          202,
        ),
      );
    }
  } finally {
    await bare.close();
    await plain.close();
  }
  const medianOf = (rounds: RequestRate[]) =>
    [...rounds].map((round) => round.perSecond).sort((a, b) => a - b)[Math.floor((rounds.length - 1) / 2)] ?? 0;
  await drain(api, listKey);
  await sql`update notifications set shown = 0, clicked = 0, converted = 0 where id = ${notification.id}`;
  await sql`delete from notification_events where notification_id = ${notification.id}`;

  await sql`create table bench_write_log (what text not null)`;
  await sql`create function bench_log_write() returns trigger language plpgsql as $$
    begin insert into bench_write_log values (tg_argv[0]); return null; end $$`;
  await sql`create trigger bench_count_updates after update on notifications
    for each row execute function bench_log_write('notification row update')`;
  await sql`create trigger bench_count_inserts after insert on notification_events
    for each statement execute function bench_log_write('insert statement')`;
  try {
    const bodies = endpoints.map((endpoint) =>
      JSON.stringify({ notificationId: notification.id, endpoint, type: 'shown' }),
    );
    await postAll(`${apiUrl}/api/v1/events`, app.secret, bodies, load.concurrency);
    await drain(api, listKey);
    const writes = await sql<{ what: string; n: number }[]>`
      select what, count(*)::int as n from bench_write_log group by what`;
    const byKind = Object.fromEntries(writes.map((row) => [row.what, row.n]));
    const [counted] = await sql<{ shown: number }[]>`select shown from notifications where id = ${notification.id}`;
    const insertStatements = byKind['insert statement'] ?? 0;
    const notificationRowUpdates = byKind['notification row update'] ?? 0;
    const figures: EventFigures = {
      eventsPerSec: medianOf(eventRounds),
      plainFastifyReqPerSec: medianOf(bareRounds),
      vsPlainFastify: median(
        eventRounds.map((round, index) => round.perSecond / (bareRounds[index]?.perSecond ?? Number.NaN)),
      ),
      plainNodeReqPerSec: medianOf(plainRounds),
      vsPlain: median(
        eventRounds.map((round, index) => round.perSecond / (plainRounds[index]?.perSecond ?? Number.NaN)),
      ),
      roundsPerSec: eventRounds.map((round) => round.perSecond),
      convertedPerSec: medianOf(convertedRounds),
      convertedVsShown: median(
        convertedRounds.map((round, index) => round.perSecond / (eventRounds[index]?.perSecond ?? Number.NaN)),
      ),
      manySubscriptionsPerSec: medianOf(manyRounds),
      manySubscriptionsVsPlainFastify: median(
        manyRounds.map((round, index) => round.perSecond / (bareRounds[index]?.perSecond ?? Number.NaN)),
      ),
      apiMicrosPerRequest: Math.round(median(eventRounds.map(microsPerRequest))),
      plainMicrosPerRequest: Math.round(median(plainRounds.map(microsPerRequest))),
      connections: load.concurrency,
      distinctEvents: endpoints.length,
      insertStatements,
      notificationRowUpdates,
      writesPer1000: ((insertStatements + notificationRowUpdates) * 1000) / endpoints.length,
      counted: counted?.shown ?? 0,
    };
    say(
      `events phase done: ${figures.counted.toLocaleString('en-US')} of ${figures.distinctEvents.toLocaleString('en-US')} distinct events counted`,
    );
    return figures;
  } finally {
    await sql`drop trigger bench_count_updates on notifications`;
    await sql`drop trigger bench_count_inserts on notification_events`;
    await sql`drop function bench_log_write()`;
    await sql`drop table bench_write_log`;
  }
}

const whole = (value: number) => Math.round(value).toLocaleString('en-US');

/** The report's lines for (g). */
export function describeEvents(figures: EventFigures): string {
  return (
    `(g) POST /events: ${whole(figures.eventsPerSec)} events/s accepted (rounds ${figures.roundsPerSec.map(whole).join(', ')}), ` +
    `plain Fastify route ${whole(figures.plainFastifyReqPerSec)} req/s, plain node:http ${whole(figures.plainNodeReqPerSec)} req/s, ` +
    `same load (${figures.connections} keep-alive connections, median); CPU a request in the serving process: ` +
    `API ${figures.apiMicrosPerRequest} µs, plain node:http ${figures.plainMicrosPerRequest} µs; ` +
    `the body always the same event (counted once)\n` +
    `    POST /events with \`converted\` and a value, rounds interleaved: ${whole(figures.convertedPerSec)} events/s, ` +
    `${figures.convertedVsShown.toFixed(2)}× the \`shown\` rounds\n` +
    `    POST /events, each request another of ${figures.distinctEvents.toLocaleString('en-US')} subscriptions' events in turn: ` +
    `${whole(figures.manySubscriptionsPerSec)} events/s, ${figures.manySubscriptionsVsPlainFastify.toFixed(2)}× the plain Fastify route ` +
    `(the flush checks each in PostgreSQL meanwhile; reported, not the target's figure)\n` +
    `    database writes: ${figures.distinctEvents.toLocaleString('en-US')} distinct events → ` +
    `${figures.insertStatements} insert statements + ${figures.notificationRowUpdates} notification row updates = ` +
    `${figures.writesPer1000.toFixed(2)} writes per 1,000 events (a row update per event: 1,000); ` +
    `${whole(figures.counted)} counted`
  );
}

/** POST /events at least half the rate of a plain Fastify route parsing the same bearer header, same run. */
export const EVENTS_TARGET_VS_PLAIN = 0.5;

/** The report's verdict line, and the same ratio against plain node:http beside it (not the target's baseline). */
export function eventsVerdict(figures: EventFigures | null): string {
  const target = `Target POST /events ≥ ${EVENTS_TARGET_VS_PLAIN}× a plain Fastify route parsing the bearer header`;
  if (figures === null) return `${target}: –  not assessed`;
  const met = figures.vsPlainFastify >= EVENTS_TARGET_VS_PLAIN;
  return (
    `${target}: ${figures.vsPlainFastify.toFixed(2)}× (${whole(figures.eventsPerSec)} vs ${whole(figures.plainFastifyReqPerSec)} req/s)  ` +
    `${met ? 'MET' : 'NOT MET'}  (vs plain node:http ${figures.vsPlain.toFixed(2)}×, ${whole(figures.plainNodeReqPerSec)} req/s)`
  );
}

/** `converted` events at least this share of the `shown` rate, same run (within 10 %). */
export const CONVERTED_TARGET_VS_SHOWN = 0.9;

export function convertedVerdict(figures: EventFigures | null): string {
  const target = `Target POST /events with converted within 10 % of its rate with shown`;
  if (figures === null) return `${target}: –  not assessed`;
  return (
    `${target}: ${whole(figures.convertedPerSec)} vs ${whole(figures.eventsPerSec)} events/s = ` +
    `${figures.convertedVsShown.toFixed(2)}× (median of the per-round ratios)  ` +
    `${figures.convertedVsShown >= CONVERTED_TARGET_VS_SHOWN ? 'MET' : 'NOT MET'}`
  );
}
