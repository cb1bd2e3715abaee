import { type AnswerKind, type DeliverableSubscription, startChunk } from '@webpush/db';
import { failureKey, type PushOptions, type PushOutcome, refusedBySubscription } from '@webpush/push';
import type { DeliveryChunkJob } from '@webpush/queue';
import { inSpan, openSpan, type Span, SpanStatusCode, tracingActive } from '@webpush/tracing';
import type { WorkerContext } from '../context.js';
import type { BrowserPayload } from './browser-payload.js';
import { ChunkBodies } from './chunk-bodies.js';
import { queueChunks } from './chunk-jobs.js';
import { recordChunkOutcomeThroughOutage } from './chunk-outcome.js';
import { defaultOutageRetry, retryWhileDatabaseAway } from './database-outage.js';
import type { ChunkProgress } from './progress-recorder.js';
import { type SigningKeys, signingKeys } from './signing-keys.js';
import { distinctPayloads, subscriptionPayloads } from './variant-payloads.js';

/** `stopped`: the send was stopped by its account's suspension; nothing was pushed. */
export type ChunkResult = 'recorded' | 'duplicate' | 'gone' | 'stopped';

/**
 * When a retry may go out: exponential backoff from `retryBaseMs` (with ±20 % jitter so retries of
 * many chunks spread out), never before the push service's Retry-After, never later than `retryMaxMs`.
 */
export function retryDelayMs(
  attempt: number,
  retryAfterMs: number,
  { retryBaseMs, retryMaxMs }: { retryBaseMs: number; retryMaxMs: number },
): number {
  const backoff = retryBaseMs * 2 ** (attempt - 1) * (0.8 + Math.random() * 0.4);
  return Math.min(retryMaxMs, Math.max(retryAfterMs, backoff));
}

/**
 * Sends one chunk and records its outcome once. 201/202 → sent; 404/410 → the subscription expires;
 * 429/5xx/network → sent again later as the next attempt (until the last attempt, then failed);
 * anything else → failed.
 *
 * Answers are recorded while the chunk is sent, by the process's ProgressRecorder: one write for
 * every DELIVERY_PROGRESS_BATCH answers of all the chunks being sent, in the background (a lane waits
 * only when the previous write is still under way and the next batch is full). A re-run after a
 * crash reads them and sends only the rest, so the pushes that can arrive twice are those in flight
 * or not yet written at the crash (`unrecordedBound` of @webpush/config, per process).
 * The chunk's counts reach the notification once, in the transaction that completes the chunk.
 * Writes that fail because PostgreSQL is unreachable (a restart) are tried again with the answers
 * already obtained, rather than failing the job and sending those again (database-outage.ts).
 */
export function deliverChunk(context: WorkerContext, job: DeliveryChunkJob): Promise<ChunkResult> {
  return inSpan(
    'notification.chunk',
    {
      'webpush.notification_id': job.notificationId,
      'webpush.chunk.attempt': job.attempt,
      'webpush.chunk.size': job.subscriptionIds.length,
    },
    () => sendChunk(context, job),
  );
}

/** `https://host[:port]` of an endpoint (WNS's answers mean what they mean by its host). */
function originOf(endpoint: string): string | undefined {
  return URL.canParse(endpoint) ? new URL(endpoint).origin : undefined;
}

/** One push's span (tracing on only): the push service's origin, then its answer. */
function pushSpan(endpoint: string) {
  return openSpan('push.send', { 'server.address': URL.canParse(endpoint) ? new URL(endpoint).origin : '' });
}

function endPushSpan(span: Span, outcome: PushOutcome) {
  span.setAttribute('webpush.push.outcome', outcome.kind);
  if ('status' in outcome && outcome.status !== undefined)
    span.setAttribute('http.response.status_code', outcome.status);
  if (outcome.kind === 'failed' || outcome.kind === 'retry') span.setStatus({ code: SpanStatusCode.ERROR });
  span.end();
}

/** One run of a chunk: what it sends with, and what it has answered so far. Each step takes it whole. */
interface ChunkRun {
  readonly context: WorkerContext;
  readonly job: DeliveryChunkJob;
  readonly key: ChunkProgressKey;
  readonly subscriptions: readonly DeliverableSubscription[];
  /** Targets that expired or were removed since the fan-out: not sent to, counted as expired. */
  readonly vanished: number;
  /** Targets the app's frequency cap holds back: not sent to, counted as skipped. */
  readonly skipped: number;
  readonly signing: SigningKeys;
  readonly options: PushOptions;
  /** What each subscription receives (its variant, or its language among a send's translations). */
  readonly payloadFor: (subscription: DeliverableSubscription) => BrowserPayload;
  readonly bodies: ChunkBodies<DeliverableSubscription> | null;
  readonly progress: ChunkProgress;
  readonly mayRetry: boolean;
  readonly traced: boolean;
  readonly counts: { sent: number; expired: number; retry: number; failed: number };
  /** Shown on the notification (`failureReasons`), per push-service answer. */
  readonly failureReasons: Record<string, number>;
  /** Why each failed push failed, by subscription id (the notification's report). */
  readonly failureDetails: Record<string, string>;
  /** Refusal streaks: refused for a reason of the subscription's own, or sent after earlier refusals. */
  readonly refused: string[];
  readonly cleared: string[];
  /** The index of the next subscription a lane takes. */
  next: number;
}

type ChunkProgressKey = Parameters<WorkerContext['progress']['open']>[0];
type LastAnswers = Awaited<ReturnType<ChunkProgress['finish']>>;

async function sendChunk(context: WorkerContext, job: DeliveryChunkJob): Promise<ChunkResult> {
  const run = await openChunkRun(context, job);
  if (run === 'gone' || run === 'duplicate' || run === 'stopped') return run;
  const last = await sendToEverySubscription(run);
  if (last === null) {
    context.metrics.chunks.inc({ result: 'duplicate' });
    return 'duplicate';
  }
  return recordOutcome(run, last);
}

async function openChunkRun(
  context: WorkerContext,
  job: DeliveryChunkJob,
): Promise<ChunkRun | 'gone' | 'duplicate' | 'stopped'> {
  const { db, config } = context;
  const key = {
    notificationId: job.notificationId,
    firstSubscriptionId: job.firstSubscriptionId,
    attempt: job.attempt,
    appId: job.appId,
  };
  // Reads only: tried again while PostgreSQL restarts instead of spending the job's attempts.
  const start = await retryWhileDatabaseAway(() => startChunk(db, key, job.subscriptionIds), defaultOutageRetry);
  if (start.state === 'gone' || start.state === 'stopped') return start.state;
  if (start.state === 'settled') {
    context.metrics.chunks.inc({ result: 'duplicate' });
    return 'duplicate';
  }
  const { delivery, subscriptions } = start;
  // Each subscription is signed with the key it was made with (several after a rotation).
  const signing = await signingKeys(context, delivery, subscriptions);
  const anyKey = [...signing.values()].some((credentials) => credentials !== null);
  const options: PushOptions = { ttl: delivery.notification.ttl, urgency: delivery.notification.urgency };
  if (delivery.notification.topic !== null) options.topic = delivery.notification.topic;
  const payloadFor = subscriptionPayloads(delivery, context.clickTokens, config.publicUrl);
  return {
    context,
    job,
    key,
    subscriptions,
    vanished: start.unanswered - subscriptions.length - start.skipped,
    skipped: start.skipped,
    signing,
    options,
    payloadFor,
    bodies:
      anyKey && context.encryption
        ? // A batch goes to the threads as one message per distinct payload in it: with several
          // payloads (variants, translations) the batch grows with them, so that each message still
          // carries about 16 keys (3 languages in batches of 16: 12.6 % slower than one; measured).
          new ChunkBodies(
            context.encryption,
            payloadFor,
            subscriptions,
            4,
            16 * Math.min(4, distinctPayloads(delivery)),
          )
        : null,
    progress: context.progress.open(key),
    mayRetry: job.attempt < config.delivery.maxAttempts,
    traced: tracingActive(),
    counts: { sent: 0, expired: 0, retry: 0, failed: 0 },
    failureReasons: {},
    failureDetails: {},
    refused: [],
    cleared: [],
    next: 0,
  };
}

/** The answers left to write once every lane is done, or null when another run took the chunk over. */
async function sendToEverySubscription(run: ChunkRun): Promise<LastAnswers | null> {
  const { progress } = run;
  let last: LastAnswers;
  try {
    await runLanes(run);
    last = await progress.finish();
  } catch (error) {
    progress.discard();
    throw error;
  } finally {
    run.context.metrics.countPushes(run.counts);
  }
  if (progress.failure !== null) throw progress.failure;
  return progress.abandoned ? null : last;
}

async function runLanes(run: ChunkRun): Promise<void> {
  const lanes: Promise<void>[] = [];
  // One lane per turn of the event loop: a lane's first push is encrypted synchronously, and undici
  // writes a request to its socket only after the current turn, so lanes started together would keep
  // the first push off the wire until all of them had encrypted.
  for (let i = Math.min(run.context.config.delivery.pushConcurrency, run.subscriptions.length); i > 0; i--) {
    const started = lane(run);
    started.catch(() => {}); // handled by Promise.all below; not "unhandled" while the others start
    lanes.push(started);
    if (i > 1) await new Promise((resolve) => setImmediate(resolve));
  }
  await Promise.all(lanes);
}

async function lane(run: ChunkRun): Promise<void> {
  const { progress, subscriptions } = run;
  while (run.next < subscriptions.length && !progress.abandoned && progress.failure === null) {
    const index = run.next++;
    const subscription = subscriptions[index] as DeliverableSubscription;
    const outcome = await push(run, subscription, index);
    if (recordAnswer(run, subscription, outcome)) await progress.settle();
  }
}

async function push(run: ChunkRun, subscription: DeliverableSubscription, index: number): Promise<PushOutcome> {
  const vapid = run.signing.get(subscription.vapidKeyVersion) ?? null;
  if (!vapid) return { kind: 'failed', reason: 'VAPID key unavailable' };
  const body = run.bodies ? await run.bodies.body(index) : undefined;
  const started = performance.now();
  const span = run.traced ? pushSpan(subscription.endpoint) : null;
  let outcome: PushOutcome;
  try {
    // With a body from the pool the sender only checks the text's size: a declarative payload's
    // own text (two click tokens, two HMACs) is made only when the sender encrypts itself.
    const payload = run.payloadFor(subscription);
    const text = body ? payload.sizedText : payload.textFor(subscription.id);
    outcome = await run.context.sender.send(subscription, text, vapid, run.options, body);
  } catch (error) {
    outcome = { kind: 'retry', reason: error instanceof Error ? error.message : 'send threw' };
  }
  if (span) endPushSpan(span, outcome);
  run.context.metrics.observePush(outcome.kind, performance.now() - started);
  return outcome;
}

/** Counts one answer and hands it to the progress writer; true when the lane must wait for a write. */
function recordAnswer(run: ChunkRun, subscription: DeliverableSubscription, outcome: PushOutcome): boolean {
  run.counts[outcome.kind]++;
  if (outcome.kind === 'sent') {
    if (subscription.refusals > 0) run.cleared.push(subscription.id);
  } else if (outcome.kind === 'failed' && refusedBySubscription(outcome, originOf(subscription.endpoint))) {
    run.refused.push(subscription.id);
  }
  let kind: AnswerKind = outcome.kind;
  let retryAfterMs = 0;
  if (outcome.kind === 'retry') {
    if (run.mayRetry) retryAfterMs = outcome.retryAfterMs ?? 0;
    else kind = 'failed';
  }
  if (kind === 'failed') {
    const reason = failureKey(outcome);
    run.failureReasons[reason] = (run.failureReasons[reason] ?? 0) + 1;
    run.failureDetails[subscription.id] = reason;
  }
  return run.progress.answer(subscription.id, kind, retryAfterMs);
}

async function recordOutcome(run: ChunkRun, last: LastAnswers): Promise<ChunkResult> {
  const { context, job, refused, cleared, failureReasons, failureDetails } = run;
  const { config, log, metrics } = context;
  const {
    recorded,
    counts: recordedCounts,
    retryChunk,
  } = await recordChunkOutcomeThroughOutage(
    {
      db: context.db,
      chunk: run.key,
      last,
      vanished: run.vanished,
      skipped: run.skipped,
      retryNotBefore: (retryAfterMs) => new Date(Date.now() + retryDelayMs(job.attempt, retryAfterMs, config.delivery)),
      failureReasons,
      refusals:
        refused.length + cleared.length > 0
          ? { refused, cleared, retireAfter: config.delivery.retireAfterRefusals }
          : null,
      failureDetails,
    },
    defaultOutageRetry,
    (error, retry) => {
      if (retry === 1)
        log.warn(
          { err: error, notificationId: job.notificationId },
          'PostgreSQL unreachable: the chunk outcome is written again',
        );
    },
  );
  metrics.chunks.inc({ result: recorded ? 'recorded' : 'duplicate' });
  // A retry is a later chunk of its send: behind every send's first chunk.
  if (retryChunk) await queueChunks(context.queues, [retryChunk], 1);
  if (recordedCounts && (recordedCounts.failed > 0 || retryChunk)) {
    const retrying = retryChunk?.subscriptionIds.length ?? 0;
    log.info(
      { notificationId: job.notificationId, attempt: job.attempt, ...recordedCounts, retrying, failureReasons },
      'chunk had failures',
    );
  }
  return recorded ? 'recorded' : 'duplicate';
}
