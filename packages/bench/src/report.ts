import type { CpuShare } from './cpu-meter.js';
import { round } from './stats.js';

export interface Machine {
  cpus: number;
  model: string;
  node: string;
  memoryGb: number;
  loadAverageAtStart: number;
}

export interface WorkerFigures {
  /** `src` (through tsx) or `dist` (the build). */
  entry: 'src' | 'dist';
  sendsPerSec: number;
  runsPerSec: number[];
  peakRssMb: number;
  startRssMb: number;
  highWaterMarkMb: number;
  cpu: CpuShare;
}

interface SenderFigures {
  sendsPerSec: number;
  cpu: CpuShare;
}

/** A phase left out with BENCH_PHASES is null, and so is every figure that needs it. */
export interface BenchFigures {
  subscriptions: number;
  worker: WorkerFigures | null;
  peers: { peerSubscriptions: number; naive: SenderFigures; bare: SenderFigures } | null;
  http: { notifyReqPerSec: number; bareFastifyReqPerSec: number } | null;
  settings: { chunkConcurrency: number; pushConcurrency: number; chunkSize: number; fanOutConcurrency: number };
  standIn: { verifyEvery: number; received: number; verified: number; violations: number; connections: number };
  seedSeconds: number;
  machine: Machine;
}

/** Targets of the issue. */
const TARGET_VS_NAIVE = 3;
const TARGET_VS_BARE = 0.85;
const TARGET_RSS_MB = 250;
const RSS_TARGET_AT = 1_000_000;

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

const cpuRow = (name: string, cpu: CpuShare | undefined): string[] =>
  cpu === undefined
    ? [name, '–', '–', '–', '–', '–', '–']
    : [
        name,
        fixed(cpu.sender, 2),
        fixed(cpu.standIn, 2),
        fixed(cpu.bench, 2),
        fixed(cpu.rest, 2),
        fixed(cpu.senderMicrosPerMessage),
        fixed(cpu.standInMicrosPerMessage),
      ];

/** The readable tables, then the target verdicts, then (last line) one JSON object. */
export function printReport(figures: BenchFigures): void {
  const { worker, peers, http, settings, standIn, machine } = figures;
  const ratioVsNaive = ratio(worker?.sendsPerSec, peers?.naive.sendsPerSec);
  const ratioVsBare = ratio(worker?.sendsPerSec, peers?.bare.sendsPerSec);
  // CPU per message is steadier than throughput when other processes take cores away.
  const cpuRatioVsBare = ratio(peers?.bare.cpu.senderMicrosPerMessage, worker?.cpu.senderMicrosPerMessage);
  const rssMet = worker !== null && figures.subscriptions >= RSS_TARGET_AT ? worker.peakRssMb < TARGET_RSS_MB : null;
  const peerCount = fixed(peers?.peerSubscriptions);

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
        '(b) naive: web-push sendNotification',
        `${fixed(peers?.naive.sendsPerSec)} sends/s`,
        `promise pool of 50, ${peerCount} subscriptions, own process, median`,
      ],
      [
        '(c) bare sender: @webpush/push, no queue/DB',
        `${fixed(peers?.bare.sendsPerSec)} sends/s`,
        `promise pool of 50, ${peerCount} subscriptions, own process, median`,
      ],
      [
        '(d) POST /notify, app with 0 subscribers',
        `${fixed(http?.notifyReqPerSec)} req/s`,
        'API-key auth + rate limit (Redis) + accept transaction; 32 keep-alive connections, median',
      ],
      ['    POST /bare, plain Fastify route', `${fixed(http?.bareFastifyReqPerSec)} req/s`, 'same process, same load'],
    ]),
  );
  console.log('');
  console.log('Where the cores went (cores busy on average; CPU µs per message):');
  console.log(
    table([
      ['Phase', 'sender', 'stand-in', 'bench', 'rest (PG, Redis, other)', 'sender µs/msg', 'stand-in µs/msg'],
      cpuRow('(a) worker', worker?.cpu),
      cpuRow('(b) naive', peers?.naive.cpu),
      cpuRow('(c) bare', peers?.bare.cpu),
    ]),
  );
  console.log('');
  console.log(
    `Worker settings: WORKER_DELIVERY_CONCURRENCY=${settings.chunkConcurrency} PUSH_CONCURRENCY=${settings.pushConcurrency} ` +
      `DELIVERY_CHUNK_SIZE=${settings.chunkSize} WORKER_FAN_OUT_CONCURRENCY=${settings.fanOutConcurrency}`,
  );
  console.log(
    `Push stand-in (bench mode, own process, same cores): ${fixed(standIn.received)} pushes answered 201, ` +
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
  console.log('');
  console.log(
    `Target worker ≥ ${TARGET_VS_NAIVE}× naive:    ${fixed(ratioVsNaive, 2)}×  ${verdict(atLeast(ratioVsNaive, TARGET_VS_NAIVE))}`,
  );
  console.log(
    `Target worker ≥ ${TARGET_VS_BARE}× bare:  ${fixed(ratioVsBare, 2)}×  ${verdict(atLeast(ratioVsBare, TARGET_VS_BARE))}`,
  );
  console.log(
    `  (by CPU per message, worker vs bare: ${fixed(cpuRatioVsBare, 2)}×, the throughput ratio on an idle machine)`,
  );
  console.log(
    `Target worker RSS < ${TARGET_RSS_MB} MB at ${fixed(RSS_TARGET_AT)} subscriptions: ${fixed(worker?.peakRssMb, 1)} MB ` +
      `at ${fixed(figures.subscriptions)}  ${verdict(rssMet)}`,
  );
  const cpuJson = (cpu: CpuShare | undefined) =>
    cpu === undefined
      ? null
      : {
          senderCores: round(cpu.sender, 2),
          standInCores: round(cpu.standIn, 2),
          benchCores: round(cpu.bench, 2),
          restCores: round(cpu.rest, 2),
          senderMicrosPerMessage: round(cpu.senderMicrosPerMessage),
          standInMicrosPerMessage: round(cpu.standInMicrosPerMessage),
        };
  const rounded = (value: number | undefined, digits = 0) => (value === undefined ? null : round(value, digits));
  console.log(
    JSON.stringify({
      sendsPerSec: rounded(worker?.sendsPerSec),
      naiveSendsPerSec: rounded(peers?.naive.sendsPerSec),
      bareSendsPerSec: rounded(peers?.bare.sendsPerSec),
      ratioVsNaive,
      ratioVsBare,
      cpuRatioVsBare,
      workerPeakRssMb: rounded(worker?.peakRssMb, 1),
      notifyReqPerSec: rounded(http?.notifyReqPerSec),
      bareFastifyReqPerSec: rounded(http?.bareFastifyReqPerSec),
      subscriptions: figures.subscriptions,
      peerSubscriptions: peers?.peerSubscriptions ?? null,
      workerEntry: worker?.entry ?? null,
      workerRunsSendsPerSec: worker?.runsPerSec.map((value) => round(value)) ?? null,
      workerStartRssMb: rounded(worker?.startRssMb, 1),
      workerRssHighWaterMarkMb: rounded(worker?.highWaterMarkMb, 1),
      cpu: { worker: cpuJson(worker?.cpu), naive: cpuJson(peers?.naive.cpu), bare: cpuJson(peers?.bare.cpu) },
      settings,
      standIn,
      seedSeconds: round(figures.seedSeconds, 1),
      targets: {
        vsNaive: { target: TARGET_VS_NAIVE, met: atLeast(ratioVsNaive, TARGET_VS_NAIVE) },
        vsBare: { target: TARGET_VS_BARE, met: atLeast(ratioVsBare, TARGET_VS_BARE) },
        rss: { targetMb: TARGET_RSS_MB, atSubscriptions: RSS_TARGET_AT, met: rssMet },
      },
      machine,
    }),
  );
}
