import type { SendingCpu } from './cpu-meter.js';
import { type AcceptLatency, acceptJson, acceptRows, acceptVerdict } from './measure-accept.js';
import type { AudienceFigures } from './measure-audiences.js';
import { type EmbeddedFigures, embeddedJson, embeddedRows, embeddedVerdicts } from './measure-embedded.js';
import { convertedVerdict, describeEvents, type EventFigures, eventsVerdict } from './measure-events.js';
import {
  type ExportFigures,
  type ImportFigures,
  TARGET_EXPORT_ROWS_PER_SEC,
  TARGET_EXPORT_RSS_MB,
  TARGET_IMPORT_MS,
  TARGET_IMPORT_RSS_MB,
} from './measure-export.js';
import type { RequestRate } from './measure-http.js';
import type { RecoveryFigures } from './measure-recovery.js';
import { type RetentionFigures, retentionVerdict } from './measure-retention.js';
import {
  type FairnessFigures,
  fairnessVerdict,
  localTimeVerdict,
  type ShapeFigures,
  shapeRows,
  shapeVerdicts,
  type ThrottleFigures,
  throttleVerdict,
} from './measure-shapes.js';
import { type StatsFigures, statsVerdict } from './measure-stats.js';
import { describeStorage, type StorageFigures } from './measure-storage.js';
import { type SubscribeFigures, subscribeVerdict } from './measure-subscribe.js';
import { median, round } from './stats.js';
import type { WorkerEntry } from './worker-process.js';

export interface Machine {
  cpus: number;
  model: string;
  node: string;
  memoryGb: number;
  loadAverageAtStart: number;
}

export interface WorkerFigures {
  /** `src` (through tsx), `dist` (the build), or `noop` (the no-op-sender worker, sources). */
  entry: WorkerEntry;
  sendsPerSec: number;
  runsPerSec: number[];
  /** CPU µs a push of each run, in the order of `runsPerSec`. */
  microsPerRun: number[];
  peakRssMb: number;
  startRssMb: number;
  highWaterMarkMb: number;
  cpu: SendingCpu;
  /** One per run; the first run is cold (new process: key import, JWT, TLS handshake). */
  firstPushes: FirstPush[];
}

/** ms from just before POST /notify, hop by hop (see main.ts `firstPushOf`). */
export interface FirstPush {
  totalMs: number;
  acceptMs: number;
  planMs: number;
  deliverMs: number;
}

export interface SenderFigures {
  sendsPerSec: number;
  runsPerSec: number[];
  /** CPU µs a message of each run, in the order of `runsPerSec`. */
  microsPerRun: number[];
  cpu: SendingCpu;
  /** TLS connections the stand-in accepted during this sender's runs. */
  connections: number;
}

/** A phase left out with BENCH_PHASES is null, and so is every figure that needs it. */
export interface BenchFigures {
  subscriptions: number;
  worker: WorkerFigures | null;
  /**
   * Whether the rounds of (a), the worker without progress writes and (c)'s bare sender alternated
   * (both phases asked for): then round i of each is compared with round i of the others.
   */
  interleaved: boolean;
  /** The same worker with DELIVERY_PROGRESS_BATCH above any chunk's size: no progress write, only each chunk's outcome. */
  workerWithoutProgress: WorkerFigures | null;
  /**
   * The same worker with a sender that sends nothing (`noop-worker.ts`, interleaved rounds only): its
   * CPU a push is the worker's own cost beyond the push.
   */
  noopWorker: WorkerFigures | null;
  peers: {
    peerSubscriptions: number;
    naive: SenderFigures;
    /** On the worker's protocol (`http2`, PUSH_HTTP2), and on the other one. */
    bare: SenderFigures;
    otherProtocol: SenderFigures;
    http2: boolean;
  } | null;
  http: { notify: RequestRate; bare: RequestRate } | null;
  audiences: AudienceFigures | null;
  events: EventFigures | null;
  subscribe: SubscribeFigures | null;
  storage: StorageFigures | null;
  /** Recovery phases: SIGKILL of one of two workers, FLUSHDB of the workers' (private) Redis. */
  crash: RecoveryFigures | null;
  flush: RecoveryFigures | null;
  accept: AcceptLatency | null;
  /** (f) the same worker on PostgreSQL queues (the embedded mode) against Redis queues, alternating rounds. */
  embedded: EmbeddedFigures | null;
  /** (v) two variants, three languages and a frequency cap against a plain send, interleaved rounds. */
  shapes: ShapeFigures | null;
  throttle: ThrottleFigures | null;
  stats: StatsFigures | null;
  retention: RetentionFigures | null;
  /** (x) the subscribers' CSV export of BENCH_EXPORT_ROWS rows. */
  exported: ExportFigures | null;
  /** (i) the subscribers' import, batches of BENCH_IMPORT_ENTRIES. */
  imported: ImportFigures | null;
  /** (q) another app's 1-subscriber send during a large send. */
  fairness: FairnessFigures | null;
  settings: {
    chunkConcurrency: number;
    pushConcurrency: number;
    chunkSize: number;
    progressBatch: number;
    fanOutConcurrency: number;
    cryptoThreads: number;
  };
  standIn: {
    verifyEvery: number;
    delayMs: number;
    received: number;
    verified: number;
    violations: number;
    connections: number;
    h2Sessions: number;
  };
  seedSeconds: number;
  machine: Machine;
}

/** The performance targets (docs/performance.md). */
const TARGET_VS_NAIVE = 2.5;
const TARGET_VS_BARE = 0.95;
const TARGET_FIRST_PUSH_MS = 50;
const TARGET_RSS_MB = 250;
const RSS_TARGET_AT = 1_000_000;
/** Recovery targets: completion after a SIGKILL / a FLUSHDB, seconds. */
const TARGET_AFTER_KILL_S = 10;
const TARGET_AFTER_FLUSH_S = 15;

const fixed = (value: number | null | undefined, digits = 0) =>
  value === null || value === undefined
    ? '–'
    : value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
const verdict = (met: boolean | null) => (met === null ? 'not assessed' : met ? 'MET' : 'NOT MET');
const ratio = (a: number | undefined, b: number | undefined) =>
  a === undefined || b === undefined ? null : round(a / b, 2);
const atLeast = (value: number | null, target: number) => (value === null ? null : value >= target);

function table(rows: string[][]): string {
  const widths = rows[0]?.map((_, column) => Math.max(...rows.map((row) => (row[column] ?? '').length))) ?? [];
  const line = (row: string[]) =>
    row
      .map((cell, column) => cell.padEnd(widths[column] ?? 0))
      .join('  ')
      .trimEnd();
  const [head, ...body] = rows;
  return [line(head ?? []), widths.map((width) => '-'.repeat(width)).join('  '), ...body.map(line)].join('\n');
}

const cpuRow = (name: string, cpu: SendingCpu | undefined): string[] =>
  cpu === undefined
    ? [name, '–', '–', '–', '–', '–', '–']
    : [
        name,
        fixed(cpu.cores.sender, 2),
        fixed(cpu.cores.standIn, 2),
        fixed(cpu.bench, 2),
        fixed(cpu.rest, 2),
        fixed(cpu.micros.sender),
        fixed(cpu.micros.standIn),
      ];
/** CPU µs of this process (where the API and the plain Fastify server run) per request. */
const microsPerRequest = (rate: RequestRate | undefined) =>
  rate === undefined ? undefined : (rate.cpu.bench / rate.perSecond) * 1e6;
/** Cores taken by other processes while no PostgreSQL or Redis work was going on. */
const BUSY_MACHINE_CORES = 0.15;

/** `a[i] op b[i]` for each round both have. */
const perRound = (a: readonly number[], b: readonly number[], op: (x: number, y: number) => number) =>
  a.slice(0, Math.min(a.length, b.length)).map((x, index) => op(x, b[index] ?? Number.NaN));

/**
 * Why the worker spends more CPU a push than the bare sender, as measured in this run: the progress
 * writes (the default worker against the same worker writing only each chunk's outcome), and the rest.
 * Medians of the per-round differences when the rounds were interleaved.
 */
function missingCpuLine(
  worker: WorkerFigures | null,
  unwritten: WorkerFigures | null,
  bare: SenderFigures | undefined,
  progressBatch: number,
  interleaved: boolean,
): string {
  const writes = `one progress write every ${progressBatch} answers, so that a crash resends only what was in flight`;
  if (!worker || !unwritten || !bare) {
    return `  (the worker's extra work beyond the bare sender includes ${writes}; see docs/performance.md for the profile)`;
  }
  const difference = (
    a: { microsPerRun: number[]; cpu: SendingCpu },
    b: { microsPerRun: number[]; cpu: SendingCpu },
  ) =>
    interleaved
      ? median(perRound(a.microsPerRun, b.microsPerRun, (x, y) => x - y))
      : a.cpu.micros.sender - b.cpu.micros.sender;
  const total = difference(worker, bare);
  const progress = difference(worker, unwritten);
  const rest = difference(unwritten, bare);
  const unwrittenRatio = interleaved
    ? median(perRound(bare.microsPerRun, unwritten.microsPerRun, (x, y) => x / y))
    : bare.cpu.micros.sender / unwritten.cpu.micros.sender;
  const how = interleaved
    ? `Medians of the differences of ${worker.microsPerRun.length} interleaved rounds; on this kind of VM one round's ` +
      'split moves by tens of µs, docs/performance.md has the medians of several runs and a profile'
    : 'One run of each, one after the other: the split moves from run to run, docs/performance.md has the medians of several and a profile';
  return (
    `  (the worker spent ${fixed(total)} µs CPU a push more than the bare sender: ` +
    `${fixed(progress)} µs for ${writes} (the same worker writing only each chunk's outcome: ` +
    `${fixed(unwrittenRatio, 2)}× bare by CPU), and ${fixed(rest)} µs ` +
    `for the rest: the queue, the chunk's reads and outcome, metrics and GC. ${how})`
  );
}

/**
 * The worker's own cost measured alone (the no-op worker's CPU a push, median of its rounds), and the
 * CPU ratio to the bare sender it allows at best: bare ÷ (bare + own cost), per round, if that cost
 * were simply added to a real push. Null without the no-op worker's rounds.
 */
function ownCost(noop: WorkerFigures | null, bare: SenderFigures | undefined) {
  if (!noop || !bare || noop.microsPerRun.length === 0) return null;
  const ceilings = perRound(bare.microsPerRun, noop.microsPerRun, (b, own) => b / (b + own));
  return {
    microsPerPush: median(noop.microsPerRun),
    bareMicrosPerPush: median(bare.microsPerRun),
    cpuCeilingVsBare: round(median(ceilings), 2),
  };
}

function ownCostLine(own: NonNullable<ReturnType<typeof ownCost>>, cpuRatioVsBare: number | null): string {
  const allowed = (own.bareMicrosPerPush * (1 - TARGET_VS_BARE)) / TARGET_VS_BARE;
  const beside =
    cpuRatioVsBare !== null && cpuRatioVsBare < own.cpuCeilingVsBare
      ? `; the measured ${fixed(cpuRatioVsBare, 2)}× is lower still, as that work costs more beside real pushes (caches, GC, scheduling)`
      : '';
  return (
    `  (the worker's own work measured alone — the same worker with a sender that sends nothing — costs ` +
    `${fixed(own.microsPerPush, 1)} µs CPU a push: the queue, PostgreSQL, the lanes, metrics and their GC. ` +
    `${TARGET_VS_BARE}× by CPU allows ${fixed(allowed, 1)} µs beside the bare sender's ${fixed(own.bareMicrosPerPush)} µs ` +
    `a push, so by CPU the worker can reach at most ${fixed(own.cpuCeilingVsBare, 2)}× here${beside})`
  );
}

/** The readable tables, then the target verdicts, then (last line) one JSON object. */
export function printReport(figures: BenchFigures): void {
  const { worker, workerWithoutProgress: unwritten, noopWorker, peers, http, settings, standIn, machine } = figures;
  const own = ownCost(noopWorker, peers?.bare);
  const ratioVsNaive = ratio(worker?.sendsPerSec, peers?.naive.sendsPerSec);
  // Interleaved rounds are compared pairwise (round i of the worker with round i of the bare sender,
  // minutes apart at most), as an outside harness would; otherwise the medians of each.
  const { interleaved } = figures;
  const bare = peers?.bare;
  const ratiosPerRound =
    interleaved && worker && bare ? perRound(worker.runsPerSec, bare.runsPerSec, (a, b) => round(a / b, 2)) : null;
  // CPU per message is steadier than throughput when other processes take cores away.
  const cpuRatiosPerRound =
    interleaved && worker && bare ? perRound(bare.microsPerRun, worker.microsPerRun, (a, b) => round(a / b, 2)) : null;
  const ratioVsBare = ratiosPerRound
    ? round(median(ratiosPerRound), 2)
    : ratio(worker?.sendsPerSec, peers?.bare.sendsPerSec);
  const cpuRatioVsBare = cpuRatiosPerRound
    ? round(median(cpuRatiosPerRound), 2)
    : ratio(peers?.bare.cpu.micros.sender, worker?.cpu.micros.sender);
  const otherCores = peers === null ? null : Math.max(peers.naive.cpu.rest, peers.bare.cpu.rest);
  const rssMet = worker !== null && figures.subscriptions >= RSS_TARGET_AT ? worker.peakRssMb < TARGET_RSS_MB : null;
  const peerCount = fixed(peers?.peerSubscriptions);
  const protocol = peers?.http2 ? 'HTTP/2' : 'HTTP/1.1';
  const other = peers?.http2 ? 'HTTP/1.1' : 'HTTP/2';
  // Run 1 is a cold process; with one run only (BENCH_MODE=million) there is no warm figure to judge.
  const warmRuns = worker && worker.firstPushes.length > 1 ? worker.firstPushes.slice(1) : [];
  const sortedFirst = [...warmRuns].sort((a, b) => a.totalMs - b.totalMs);
  const medianFirst = sortedFirst[Math.floor((sortedFirst.length - 1) / 2)] ?? worker?.firstPushes[0];
  const warmFirst = sortedFirst.length > 0 ? (medianFirst?.totalMs ?? null) : null;
  const firstMet = warmFirst === null ? null : warmFirst <= TARGET_FIRST_PUSH_MS;

  console.log('');
  console.log(
    table([
      ['Measurement', 'Result', 'How'],
      [
        '(a) worker: POST /notify → completed',
        `${fixed(worker?.sendsPerSec)} sends/s`,
        `median of ${worker?.runsPerSec.map((value) => fixed(value)).join(', ') ?? '–'}; ` +
          `${fixed(figures.subscriptions)} subscriptions, 1 worker process (${worker?.entry === 'dist' ? 'built' : 'sources via tsx'})`,
      ],
      [
        '    worker RSS',
        `${fixed(worker?.peakRssMb, 1)} MB peak`,
        `sampled every 100 ms; ${fixed(worker?.startRssMb, 1)} MB after start-up, VmHWM ${fixed(worker?.highWaterMarkMb, 1)} MB`,
      ],
      [
        '    same worker, no progress writes',
        `${fixed(unwritten?.sendsPerSec)} sends/s`,
        `median of ${unwritten?.runsPerSec.map((value) => fixed(value)).join(', ') ?? '–'}; ` +
          `DELIVERY_PROGRESS_BATCH=1000000: a chunk's answers written once, with its outcome (a crash would resend the chunk); ` +
          `${fixed(unwritten?.cpu.micros.sender)} µs CPU/push vs ${fixed(worker?.cpu.micros.sender)} with a write every ${settings.progressBatch} answers`,
      ],
      [
        '    same worker, sender that sends nothing',
        `${fixed(own?.microsPerPush, 1)} µs CPU/push`,
        `median of ${noopWorker?.microsPerRun.map((value) => fixed(value, 1)).join(', ') ?? '–'}; ` +
          `every push answered 201 one event-loop turn later: the worker's own cost beyond the push ` +
          `(${fixed(noopWorker?.sendsPerSec)} /s)`,
      ],
      [
        '(b) naive: web-push sendNotification',
        `${fixed(peers?.naive.sendsPerSec)} sends/s`,
        `promise pool of 50, ${peerCount} subscriptions, own process, median`,
      ],
      [
        `(c) bare sender: @webpush/push, no queue/DB, ${protocol}`,
        `${fixed(peers?.bare.sendsPerSec)} sends/s`,
        `promise pool of 50, ${peerCount} subscriptions, own process, median`,
      ],
      [
        `    bare sender over ${other} (PUSH_HTTP2=${!peers?.http2})`,
        `${fixed(peers?.otherProtocol.sendsPerSec)} sends/s`,
        `same pool; ${fixed(peers?.otherProtocol.cpu.micros.sender)} µs CPU/push and ${fixed(peers?.otherProtocol.connections)} ` +
          `TLS connections, vs ${fixed(peers?.bare.cpu.micros.sender)} µs and ${fixed(peers?.bare.connections)} over ${protocol}`,
      ],
      [
        '(e) first push on the wire after POST /notify',
        `${fixed(warmFirst, 1)} ms`,
        `median of warm runs (${worker?.firstPushes.map((f) => fixed(f.totalMs, 1)).join(', ') ?? '–'}; run 1 is a cold process); ` +
          `hops of the median run: accepted ${fixed(medianFirst?.acceptMs, 1)}, first chunk planned +${fixed(medianFirst?.planMs, 1)}, ` +
          `first push +${fixed(medianFirst?.deliverMs, 1)}`,
      ],
      ...embeddedRows(figures.embedded),
      ...shapeRows(figures.shapes),
      ...(figures.exported
        ? [
            [
              `(x) subscribers' CSV export, ${fixed(figures.exported.rows)} rows`,
              `${fixed(figures.exported.rowsPerSec)} rows/s`,
              `streamed through the API to an HTTP client; the same cursor read alone: ${fixed(figures.exported.cursorRowsPerSec)} rows/s; ` +
                `RSS of the API's process +${fixed(figures.exported.rssGrowthMb, 1)} MB at its peak`,
            ],
          ]
        : []),
      // --- recovery rows ---
      ...recoveryRows(figures.crash, figures.flush),
      // --- end recovery rows ---
      [
        '(d) POST /notify, app with 0 subscribers',
        `${fixed(http?.notify.perSecond)} req/s`,
        `API-key auth + rate limit (Redis) + accept transaction; 32 keep-alive connections, median; ` +
          `${fixed(microsPerRequest(http?.notify))} µs API CPU a request, PostgreSQL + Redis ${fixed(http?.notify.cpu.rest, 2)} cores`,
      ],
      [
        '    POST /bare, plain Fastify route',
        `${fixed(http?.bare.perSecond)} req/s`,
        `same process, same load; ${fixed(microsPerRequest(http?.bare))} µs CPU a request`,
      ],
      [
        `POST /subscribe, ${figures.subscribe?.concurrency ?? 32} concurrent`,
        `${fixed(figures.subscribe?.emptyPerSec)} → ${fixed(figures.subscribe?.largePerSec)} req/s`,
        `target ≥ 2,000 /s, flat 0 → 1,000,000; new endpoint each request, owner with 0 → ` +
          `${fixed(figures.subscribe?.largeOwnerSubscriptions)} subscriptions, median of rounds`,
      ],
      ...acceptRows(figures.accept),
    ]),
  );
  if (figures.events) console.log(describeEvents(figures.events));
  for (const line of describeStorage(figures.storage)) console.log(line);
  console.log('');
  console.log('Where the cores went (cores busy on average; CPU µs per message):');
  console.log(
    table([
      ['Phase', 'sender', 'stand-in', 'bench', 'rest (PG, Redis, other)', 'sender µs/msg', 'stand-in µs/msg'],
      cpuRow('(a) worker', worker?.cpu),
      cpuRow('(a) worker, no progress writes', unwritten?.cpu),
      cpuRow('(a) worker, sender sends nothing', noopWorker?.cpu),
      cpuRow('(b) naive', peers?.naive.cpu),
      cpuRow(`(c) bare, ${protocol}`, peers?.bare.cpu),
      cpuRow(`(c) bare, ${other}`, peers?.otherProtocol.cpu),
    ]),
  );
  console.log('');
  console.log(
    `Worker settings: WORKER_DELIVERY_CONCURRENCY=${settings.chunkConcurrency} PUSH_CONCURRENCY=${settings.pushConcurrency} ` +
      `DELIVERY_CHUNK_SIZE=${settings.chunkSize} DELIVERY_PROGRESS_BATCH=${settings.progressBatch} WORKER_FAN_OUT_CONCURRENCY=${settings.fanOutConcurrency} ` +
      `PUSH_CRYPTO_THREADS=${settings.cryptoThreads}`,
  );
  console.log(
    `Push stand-in (bench mode, own process, same cores): ${fixed(standIn.received)} pushes answered 201 ` +
      `after ${standIn.delayMs} ms, ` +
      `1 in ${standIn.verifyEvery} checked in full (VAPID JWT + aes128gcm decryption): ` +
      `${fixed(standIn.verified)} checked, ${standIn.violations} protocol errors; ${standIn.connections} TLS connections.`,
  );
  console.log(
    `Subscriber keys: a pool of real P-256 key pairs shared round-robin (the sender's ECDH key is new per message anyway).`,
  );
  console.log(
    `Machine: ${machine.cpus} CPUs (${machine.model}), ${machine.memoryGb} GB, Node ${machine.node}, load average ` +
      `${machine.loadAverageAtStart} at start; PostgreSQL, Redis, the stand-in and the sender share these cores.`,
  );
  if (otherCores !== null && otherCores > BUSY_MACHINE_CORES) {
    console.log(
      `WARNING: other processes took ${fixed(otherCores, 2)} cores during (b)/(c): the machine was not quiet, ` +
        'so the rates are low and noisy (the CPU µs per message are steadier). Run again when it is idle.',
    );
  }
  console.log('');
  console.log(
    `Target worker ≥ ${TARGET_VS_NAIVE}× naive:    ${fixed(ratioVsNaive, 2)}×  ${verdict(atLeast(ratioVsNaive, TARGET_VS_NAIVE))}`,
  );
  console.log(
    `Target worker ≥ ${TARGET_VS_BARE}× bare:  ${fixed(ratioVsBare, 2)}×  ${verdict(atLeast(ratioVsBare, TARGET_VS_BARE))}`,
  );
  console.log(
    settings.cryptoThreads > 0
      ? `  (by CPU per message, worker vs bare: ${fixed(cpuRatioVsBare, 2)}×; the worker encrypts on ` +
          `${settings.cryptoThreads} thread(s) beside its event loop (PUSH_CRYPTO_THREADS), the bare sender on its one, ` +
          `so on a machine with a core to spare throughput exceeds the CPU ratio)`
      : `  (by CPU per message, worker vs bare: ${fixed(cpuRatioVsBare, 2)}×, the throughput ratio on an idle machine)`,
  );
  if (ratiosPerRound && cpuRatiosPerRound) {
    console.log(
      `  (medians of ${ratiosPerRound.length} interleaved rounds — worker run i, then the bare sender's run i: ` +
        `${ratiosPerRound.map((value) => `${fixed(value, 2)}×`).join(', ')}; by CPU ` +
        `${cpuRatiosPerRound.map((value) => `${fixed(value, 2)}×`).join(', ')})`,
    );
  }
  if (cpuRatioVsBare !== null && cpuRatioVsBare < TARGET_VS_BARE && !atLeast(ratioVsBare, TARGET_VS_BARE)) {
    console.log(missingCpuLine(worker, unwritten, peers?.bare, settings.progressBatch, interleaved));
    if (own) console.log(ownCostLine(own, cpuRatioVsBare));
  }
  console.log(
    `Target first push ≤ ${TARGET_FIRST_PUSH_MS} ms after POST /notify: ${fixed(warmFirst, 1)} ms (warm), ` +
      `${fixed(worker?.firstPushes[0]?.totalMs, 1)} ms (cold process) at ${fixed(figures.subscriptions)} subscriptions  ${verdict(firstMet)}`,
  );
  console.log(
    `Target worker RSS < ${TARGET_RSS_MB} MB at ${fixed(RSS_TARGET_AT)} subscriptions: ${fixed(worker?.peakRssMb, 1)} MB ` +
      `at ${fixed(figures.subscriptions)}  ${verdict(rssMet)}`,
  );
  // --- recovery targets ---
  for (const line of recoveryTargetLines(figures.crash, figures.flush)) console.log(line);
  // --- end recovery targets ---
  console.log(acceptVerdict(figures.accept));
  for (const line of embeddedVerdicts(figures.embedded)) console.log(line);
  for (const line of shapeVerdicts(figures.shapes, figures.audiences)) console.log(line);
  console.log(throttleVerdict(figures.throttle));
  console.log(localTimeVerdict(figures.audiences));
  console.log(statsVerdict(figures.stats));
  console.log(retentionVerdict(figures.retention));
  console.log(fairnessVerdict(figures.fairness));
  const imported = figures.imported;
  console.log(
    `Target import of ${fixed(imported?.entriesPerRequest ?? 10_000)} entries ≤ ${fixed(TARGET_IMPORT_MS)} ms a request, ` +
      `RSS growth < ${TARGET_IMPORT_RSS_MB} MB: ` +
      (imported
        ? `${fixed(imported.requestMs)} ms (median of ${imported.batches}; ${fixed(imported.totalSeconds, 1)} s in all; ` +
          `POST /subscribe in this run: ${fixed(figures.subscribe?.emptyPerSec)} /s), +${fixed(imported.rssGrowthMb, 1)} MB  ${verdict(
            imported.requestMs <= TARGET_IMPORT_MS && imported.rssGrowthMb < TARGET_IMPORT_RSS_MB,
          )}`
        : '–  not assessed'),
  );
  const exported = figures.exported;
  console.log(
    `Target export ≥ ${fixed(TARGET_EXPORT_ROWS_PER_SEC)} rows/s with RSS growth < ${TARGET_EXPORT_RSS_MB} MB: ` +
      (exported
        ? `${fixed(exported.rowsPerSec)} rows/s, +${fixed(exported.rssGrowthMb, 1)} MB  ${verdict(
            exported.rowsPerSec >= TARGET_EXPORT_ROWS_PER_SEC && exported.rssGrowthMb < TARGET_EXPORT_RSS_MB,
          )}`
        : '–  not assessed'),
  );
  console.log(eventsVerdict(figures.events));
  console.log(convertedVerdict(figures.events));
  for (const line of subscribeVerdict(figures.subscribe)) console.log(line);
  if (worker?.entry === 'src') {
    console.log(
      '  (worker run from sources: the tsx loader adds ~40 MB of RSS; BENCH_WORKER_ENTRY=dist after `pnpm build` ' +
        'measures the worker as deployed)',
    );
  }
  const cpuJson = (cpu: SendingCpu | undefined) =>
    cpu === undefined
      ? null
      : {
          senderCores: round(cpu.cores.sender, 2),
          standInCores: round(cpu.cores.standIn, 2),
          benchCores: round(cpu.bench, 2),
          restCores: round(cpu.rest, 2),
          senderMicrosPerMessage: round(cpu.micros.sender),
          standInMicrosPerMessage: round(cpu.micros.standIn),
        };
  const rounded = (value: number | undefined, digits = 0) => (value === undefined ? null : round(value, digits));
  console.log(
    JSON.stringify({
      sendsPerSec: rounded(worker?.sendsPerSec),
      naiveSendsPerSec: rounded(peers?.naive.sendsPerSec),
      bareSendsPerSec: rounded(peers?.bare.sendsPerSec),
      bareHttp2: peers?.http2 ?? null,
      bareOtherProtocolSendsPerSec: rounded(peers?.otherProtocol.sendsPerSec),
      bareConnections: peers?.bare.connections ?? null,
      bareOtherProtocolConnections: peers?.otherProtocol.connections ?? null,
      firstPushMs:
        worker?.firstPushes.map((f) => ({
          total: round(f.totalMs, 1),
          accept: round(f.acceptMs, 1),
          plan: round(f.planMs, 1),
          deliver: round(f.deliverMs, 1),
        })) ?? null,
      ratioVsNaive,
      ratioVsBare,
      cpuRatioVsBare,
      interleaved,
      ratioVsBarePerRound: ratiosPerRound,
      cpuRatioVsBarePerRound: cpuRatiosPerRound,
      workerPeakRssMb: rounded(worker?.peakRssMb, 1),
      notifyReqPerSec: rounded(http?.notify.perSecond),
      bareFastifyReqPerSec: rounded(http?.bare.perSecond),
      subscriptions: figures.subscriptions,
      peerSubscriptions: peers?.peerSubscriptions ?? null,
      workerEntry: worker?.entry ?? null,
      workerRunsSendsPerSec: worker?.runsPerSec.map((value) => round(value)) ?? null,
      workerWithoutProgressSendsPerSec: rounded(unwritten?.sendsPerSec),
      workerOwnMicrosPerPush: own === null ? null : round(own.microsPerPush, 1),
      cpuCeilingVsBare: own?.cpuCeilingVsBare ?? null,
      workerStartRssMb: rounded(worker?.startRssMb, 1),
      workerRssHighWaterMarkMb: rounded(worker?.highWaterMarkMb, 1),
      cpu: {
        worker: cpuJson(worker?.cpu),
        workerWithoutProgress: cpuJson(unwritten?.cpu),
        noopWorker: cpuJson(noopWorker?.cpu),
        naive: cpuJson(peers?.naive.cpu),
        bare: cpuJson(peers?.bare.cpu),
        bareOtherProtocol: cpuJson(peers?.otherProtocol.cpu),
        notifyMicrosPerRequest: rounded(microsPerRequest(http?.notify)),
        notifyDatabaseAndRedisCores: rounded(http?.notify.cpu.rest, 2),
        bareFastifyMicrosPerRequest: rounded(microsPerRequest(http?.bare)),
        otherProcessesCores: otherCores === null ? null : round(otherCores, 2),
      },
      settings,
      standIn,
      audiences: figures.audiences,
      events: figures.events,
      subscribe: figures.subscribe,
      storage: figures.storage,
      crash: recoveryJson(figures.crash),
      flush: recoveryJson(figures.flush),
      acceptLatency: acceptJson(figures.accept),
      embedded: embeddedJson(figures.embedded),
      shapes: figures.shapes,
      throttle: figures.throttle,
      stats: figures.stats,
      retention: figures.retention,
      exported: figures.exported,
      fairness: figures.fairness,
      imported: figures.imported,
      seedSeconds: round(figures.seedSeconds, 1),
      targets: {
        vsNaive: { target: TARGET_VS_NAIVE, met: atLeast(ratioVsNaive, TARGET_VS_NAIVE) },
        vsBare: { target: TARGET_VS_BARE, met: atLeast(ratioVsBare, TARGET_VS_BARE) },
        rss: { targetMb: TARGET_RSS_MB, atSubscriptions: RSS_TARGET_AT, met: rssMet },
        firstPush: { targetMs: TARGET_FIRST_PUSH_MS, met: firstMet },
      },
      machine,
    }),
  );
}

// --- recovery phases (crash, flush) ---
const seconds = (rounds: RecoveryFigures['rounds']) => rounds.map((r) => fixed(r.afterSeconds, 1)).join(', ');

function recoveryRows(crash: RecoveryFigures | null, flush: RecoveryFigures | null): string[][] {
  return [
    [
      '(f) SIGKILL of 1 of 2 workers mid-fan-out',
      crash === null ? '–' : `completed ${fixed(crash.medianAfterSeconds, 1)} s after`,
      crash === null
        ? 'BENCH_PHASES without crash'
        : `median of ${seconds(crash.rounds)} s; ${fixed(crash.targets)} targets, killed at ~30 %; target ≤ ${TARGET_AFTER_KILL_S} s`,
    ],
    [
      '    duplicate pushes after the SIGKILL',
      crash === null ? '–' : `${fixed(crash.maxDuplicated)} at most`,
      crash === null
        ? ''
        : `per round ${crash.rounds.map((r) => r.duplicated).join(', ')}; in flight at most ${fixed(crash.inFlight)} ` +
          `(chunks × PUSH_CONCURRENCY), ${fixed(crash.unrecordedBound)} with unrecorded answers; ` +
          `'Missing lock' lines ${crash.rounds.map((r) => r.missingLock).join(', ')}`,
    ],
    [
      '(g) Redis FLUSHDB mid-fan-out',
      flush === null ? '–' : `completed ${fixed(flush.medianAfterSeconds, 1)} s after`,
      flush === null
        ? 'BENCH_PHASES without flush'
        : `median of ${seconds(flush.rounds)} s; private redis-server, 1 worker, reconciler every ` +
          `${fixed(flush.reconcile.intervalMs)} ms for ${fixed(flush.reconcile.staleMs)} ms idle; ` +
          `idle worker ${fixed(flush.idleTransactionsPerSec, 1)} PostgreSQL transactions/s; target ≤ ${TARGET_AFTER_FLUSH_S} s`,
    ],
  ];
}

function recoveryTargetLines(crash: RecoveryFigures | null, flush: RecoveryFigures | null): string[] {
  const crashMet = crash === null ? null : crash.medianAfterSeconds <= TARGET_AFTER_KILL_S;
  const duplicatesMet = crash === null ? null : crash.maxDuplicated <= crash.inFlight;
  const flushMet = flush === null ? null : flush.medianAfterSeconds <= TARGET_AFTER_FLUSH_S;
  return [
    `Target completion ≤ ${TARGET_AFTER_KILL_S} s after a SIGKILL: ${fixed(crash?.medianAfterSeconds, 1)} s  ${verdict(crashMet)}`,
    `Target duplicates ≤ pushes in flight at the kill (${fixed(crash?.inFlight)}): ${fixed(crash?.maxDuplicated)}  ${verdict(duplicatesMet)}`,
    `Target completion ≤ ${TARGET_AFTER_FLUSH_S} s after FLUSHDB: ${fixed(flush?.medianAfterSeconds, 1)} s  ${verdict(flushMet)}`,
  ];
}

function recoveryJson(figures: RecoveryFigures | null) {
  if (figures === null) return null;
  return {
    medianAfterSeconds: round(figures.medianAfterSeconds, 1),
    afterSeconds: figures.rounds.map((r) => round(r.afterSeconds, 1)),
    duplicated: figures.rounds.map((r) => r.duplicated),
    missingLock: figures.rounds.map((r) => r.missingLock),
    inFlight: figures.inFlight,
    unrecordedBound: figures.unrecordedBound,
    targets: figures.targets,
    workers: figures.workers,
    idleTransactionsPerSec: figures.idleTransactionsPerSec === null ? null : round(figures.idleTransactionsPerSec, 1),
    reconcile: figures.reconcile,
  };
}
// --- end recovery phases ---
