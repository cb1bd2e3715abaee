// The HTTP client of the export and import phases, in a process of its own, so that the RSS the bench
// samples in its own process is the API's alone: reading a 200 MB file or building 100 bodies of
// 2.5 MB each is the client's memory, not the service's. `argv[2]` is the path of a JSON FileJob;
// prints one JSON line FileJobResult and exits.
import { readFile } from 'node:fs/promises';
import { Agent, request } from 'node:http';

export type FileJob =
  | { kind: 'export'; url: string; token: string }
  | {
      kind: 'import';
      url: string;
      token: string;
      entries: number;
      batches: number;
      endpointPrefix: string;
      keys: { p256dh: string; auth: string }[];
    };

export interface FileJobResult {
  /** Export: the records read (header included); import: the entries the API said it imported. */
  records: number;
  seconds: number;
  /** Import: each request's time, in milliseconds, in order. */
  requestMs: number[];
  /** The first answer other than 200, or null. */
  failure: string | null;
}

const agent = new Agent({ keepAlive: true, maxSockets: 1 });

function exchange(
  url: URL,
  method: 'GET' | 'POST',
  headers: Record<string, string>,
  body: Buffer | null,
  onData: (chunk: Buffer) => void,
) {
  return new Promise<number>((resolve, reject) => {
    const req = request(
      { agent, method, hostname: url.hostname, port: url.port, path: `${url.pathname}${url.search}`, headers },
      (res) => {
        res.on('data', onData);
        res.on('end', () => resolve(res.statusCode ?? 0));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body ?? undefined);
  });
}

async function runExport(job: Extract<FileJob, { kind: 'export' }>): Promise<FileJobResult> {
  let records = 0;
  const started = performance.now();
  const status = await exchange(new URL(job.url), 'GET', { authorization: `Bearer ${job.token}` }, null, (chunk) => {
    // A record ends with CRLF; no seeded field holds one.
    for (let i = 0; i < chunk.length; i++) if (chunk[i] === 10) records++;
  });
  return {
    records,
    seconds: (performance.now() - started) / 1000,
    requestMs: [],
    failure: status === 200 ? null : `export answered ${status}`,
  };
}

async function runImport(job: Extract<FileJob, { kind: 'import' }>): Promise<FileJobResult> {
  const url = new URL(job.url);
  const requestMs: number[] = [];
  let records = 0;
  const started = performance.now();
  for (let batch = 0; batch < job.batches; batch++) {
    const subscribers = Array.from({ length: job.entries }, (_, i) => {
      const n = batch * job.entries + i;
      const key = job.keys[n % job.keys.length] as { p256dh: string; auth: string };
      return { endpoint: `${job.endpointPrefix}import-${n}`, keys: { p256dh: key.p256dh, auth: key.auth } };
    });
    const body = Buffer.from(JSON.stringify({ subscribers }));
    const chunks: Buffer[] = [];
    const requestStarted = performance.now();
    const status = await exchange(
      url,
      'POST',
      {
        authorization: `Bearer ${job.token}`,
        'content-type': 'application/json',
        'content-length': String(body.length),
      },
      body,
      (chunk) => chunks.push(chunk),
    );
    requestMs.push(performance.now() - requestStarted);
    const answer = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { imported?: number };
    if (status !== 200 || answer.imported !== job.entries) {
      const text = Buffer.concat(chunks).toString('utf8').slice(0, 300);
      return {
        records,
        seconds: (performance.now() - started) / 1000,
        requestMs,
        failure: `batch ${batch}: ${status} ${text}`,
      };
    }
    records += answer.imported;
  }
  return { records, seconds: (performance.now() - started) / 1000, requestMs, failure: null };
}

const path = process.argv[2];
if (!path) throw new Error('usage: file-client.ts <job.json>');
const job = JSON.parse(await readFile(path, 'utf8')) as FileJob;
const result = job.kind === 'export' ? await runExport(job) : await runImport(job);
agent.destroy();
process.stdout.write(`${JSON.stringify(result)}\n`);
