import type { FirstPush, WorkerFigures } from './report.js';
import { median, round } from './stats.js';

/**
 * (f) The embedded mode's queues: the same worker, once with its BullMQ queues in Redis and once in
 * PostgreSQL (`QUEUE_BACKEND=postgres`, with an API on `COORDINATION=process`, as `pnpm dev` runs
 * embedded), both on the bench's database and push stand-in, their rounds alternating so a busy
 * machine weighs on both alike. Round i of one is compared with round i of the other.
 */
export interface EmbeddedFigures {
  redis: WorkerFigures;
  postgres: WorkerFigures;
  /** PostgreSQL-queue sends/s over Redis-queue sends/s, round by round. */
  ratiosPerRound: number[];
  ratio: number;
  /** Median first push of the PostgreSQL-queue worker's warm rounds (round 1 is a new process). */
  firstPushMs: number | null;
  redisFirstPushMs: number | null;
}

export const TARGET_EMBEDDED_RATIO = 0.5;
export const TARGET_EMBEDDED_FIRST_PUSH_MS = 100;

/** The median of the warm rounds' first pushes (all rounds when there is only one). */
function warmFirstPush(firstPushes: FirstPush[]): number | null {
  const warm = firstPushes.length > 1 ? firstPushes.slice(1) : firstPushes;
  return warm.length === 0 ? null : round(median(warm.map((first) => first.totalMs)), 1);
}

export function embeddedFigures(redis: WorkerFigures, postgres: WorkerFigures): EmbeddedFigures {
  const ratiosPerRound = postgres.runsPerSec.map((rate, index) => round(rate / (redis.runsPerSec[index] ?? rate), 2));
  return {
    redis,
    postgres,
    ratiosPerRound,
    ratio: round(median(ratiosPerRound), 2),
    firstPushMs: warmFirstPush(postgres.firstPushes),
    redisFirstPushMs: warmFirstPush(redis.firstPushes),
  };
}

const rates = (figures: WorkerFigures) => figures.runsPerSec.map((rate) => Math.round(rate)).join(', ');

/** The report's table rows, beside the Redis figures. */
export const embeddedRows = (figures: EmbeddedFigures | null): string[][] => [
  [
    '(f) embedded: worker on PostgreSQL queues',
    figures ? `${Math.round(figures.postgres.sendsPerSec).toLocaleString('en-US')} sends/s` : '–',
    figures
      ? `QUEUE_BACKEND=postgres, API on COORDINATION=process; rounds ${rates(figures.postgres)} alternating with ` +
        `the same worker on Redis queues (${rates(figures.redis)}: median ${Math.round(figures.redis.sendsPerSec).toLocaleString('en-US')}/s); ` +
        `${figures.ratio}× Redis (per round ${figures.ratiosPerRound.join(', ')}), target ≥ ${TARGET_EMBEDDED_RATIO}×`
      : 'BENCH_PHASES=embedded (or BENCH_MODE=embedded) for this phase alone',
  ],
  [
    '    first push after the 202, PostgreSQL queues',
    figures ? `${figures.firstPushMs ?? '–'} ms` : '–',
    figures
      ? `median of warm rounds (${figures.postgres.firstPushes.map((first) => round(first.totalMs, 1)).join(', ')}; ` +
        `round 1 is a new process); on Redis queues ${figures.redisFirstPushMs ?? '–'} ms; target ≤ ${TARGET_EMBEDDED_FIRST_PUSH_MS} ms`
      : '',
  ],
];

/** The report's verdict lines. */
export function embeddedVerdicts(figures: EmbeddedFigures | null): string[] {
  const verdict = (met: boolean) => (met ? 'MET' : 'NOT MET');
  if (!figures) {
    return [
      `Target embedded fan-out ≥ ${TARGET_EMBEDDED_RATIO}× Redis: –  not assessed`,
      `Target embedded first push ≤ ${TARGET_EMBEDDED_FIRST_PUSH_MS} ms: –  not assessed`,
    ];
  }
  const first = figures.firstPushMs;
  return [
    `Target embedded fan-out ≥ ${TARGET_EMBEDDED_RATIO}× Redis: ${figures.ratio}×  ${verdict(figures.ratio >= TARGET_EMBEDDED_RATIO)}`,
    `Target embedded first push ≤ ${TARGET_EMBEDDED_FIRST_PUSH_MS} ms: ${first ?? '–'} ms  ${
      first === null ? 'not assessed' : verdict(first <= TARGET_EMBEDDED_FIRST_PUSH_MS)
    }`,
  ];
}

/** The report's JSON field. */
export const embeddedJson = (figures: EmbeddedFigures | null) =>
  figures === null
    ? null
    : {
        postgresSendsPerSec: Math.round(figures.postgres.sendsPerSec),
        redisSendsPerSec: Math.round(figures.redis.sendsPerSec),
        postgresRunsPerSec: figures.postgres.runsPerSec.map((rate) => Math.round(rate)),
        redisRunsPerSec: figures.redis.runsPerSec.map((rate) => Math.round(rate)),
        ratio: figures.ratio,
        ratiosPerRound: figures.ratiosPerRound,
        firstPushMs: figures.firstPushMs,
        redisFirstPushMs: figures.redisFirstPushMs,
        postgresPeakRssMb: round(figures.postgres.peakRssMb, 1),
        target: {
          ratio: TARGET_EMBEDDED_RATIO,
          firstPushMs: TARGET_EMBEDDED_FIRST_PUSH_MS,
          met:
            figures.ratio >= TARGET_EMBEDDED_RATIO &&
            figures.firstPushMs !== null &&
            figures.firstPushMs <= TARGET_EMBEDDED_FIRST_PUSH_MS,
        },
      };
