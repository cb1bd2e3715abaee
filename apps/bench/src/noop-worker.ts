// The worker with a push sender that sends nothing: each push is answered 201 one turn of the event
// loop later, as if the push service's answer were already waiting on the socket. What this worker
// spends a push is what the worker costs beyond the push itself (encryption, TLS, HTTP): the queue,
// PostgreSQL (planning, loading a chunk, progress writes, outcome), the lanes, metrics, and the
// garbage of all of it. `pnpm bench` runs it beside the real worker and the bare sender, configured
// by the environment like the worker; it prints `worker ready` as the worker's main.ts does.
import { loadConfig } from '@webpush/config';
import type { PushOutcome, PushSender } from '@webpush/push';
import { startWorker } from '@webpush/worker/worker';
import { pino } from 'pino';

const answered: PushOutcome = { kind: 'sent', status: 201 };
const sender: PushSender = {
  send: () => new Promise((resolve) => setImmediate(resolve, answered)),
  close: async () => {},
};

const config = loadConfig();
const log = pino({ level: config.logLevel, base: { service: 'noop-worker' } });
const worker = await startWorker(config, { log, sender });
log.info('worker ready');
process.on('SIGTERM', () => {
  void worker.close().then(
    () => process.exit(0),
    (error: unknown) => {
      log.error({ err: error }, 'could not close the no-op worker');
      process.exit(1);
    },
  );
});
