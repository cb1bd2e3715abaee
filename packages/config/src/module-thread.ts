import { Worker, type WorkerOptions } from 'node:worker_threads';

/**
 * A thread running the module `name` that sits beside the module whose `import.meta.url` is `base`.
 * Built, that is the .js file. From sources (tests, `pnpm dev`, the bench) the caller is a .ts file
 * under tsx, whose `--import` hooks do not reach a worker thread on Node 20 (privatenumber/tsx#354):
 * a small bootstrap registers tsx in the thread first. `workerData` is the bootstrap's own there, so
 * pass anything the thread needs by message.
 */
export function moduleThread(base: string, name: string, options: Omit<WorkerOptions, 'eval' | 'workerData'> = {}) {
  if (!base.endsWith('.ts')) return new Worker(new URL(`./${name}.js`, base), options);
  const workerData = { tsx: import.meta.resolve('tsx/esm/api'), entry: new URL(`./${name}.ts`, base).href };
  // Dynamic imports only: the evaluated code is CommonJS or a module depending on the process's flags.
  const bootstrap = `import('node:worker_threads').then(({ workerData }) =>
  import(workerData.tsx).then(({ register }) => { register(); return import(workerData.entry); }));`;
  return new Worker(bootstrap, { ...options, eval: true, workerData });
}
