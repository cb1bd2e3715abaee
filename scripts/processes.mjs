// Runs the API and the worker side by side: output prefixed, SIGINT/SIGTERM forwarded, and when one
// process dies the other is stopped so a half-running service never goes unnoticed; so is every one
// when the launcher exits. Resolves once every process has exited (then `afterAll`, e.g. stopping
// the embedded PostgreSQL, may run). With `readable`, each JSON log line is shown as a line a person
// reads (apps/api/scripts/dev-log.mjs).
import { spawn } from 'node:child_process';
import { setPriority } from 'node:os';
import { createDevLogFormatter } from '@webpush/api/dev-log';

export function runTogether(processes, env, { readable = false } = {}) {
  const children = processes.map(({ name, args, port, background = false }) => {
    const child = spawn(process.execPath, args, {
      env: { ...env, PORT: String(port) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    // A lower scheduling priority (inherited by what it starts, `node --watch`'s child): it still
    // takes every idle core, but yields to the others when they compete, as the API and the worker
    // do while both load their modules.
    if (background && child.pid !== undefined) {
      try {
        setPriority(child.pid, 10);
      } catch {
        // Refused here (a platform or sandbox without it): it runs at the same priority as the others.
      }
    }
    const format = readable ? createDevLogFormatter({ colour: process.stdout.isTTY === true }) : (line) => [line];
    for (const stream of [child.stdout, child.stderr]) {
      let rest = '';
      stream.on('data', (chunk) => {
        const lines = (rest + chunk.toString()).split('\n');
        rest = lines.pop() ?? '';
        for (const line of lines) for (const shown of format(line)) process.stdout.write(`[${name}] ${shown}\n`);
      });
    }
    return { name, child };
  });
  let exiting = false;
  const stopAll = (signal) => {
    for (const { child } of children) if (child.exitCode === null) child.kill(signal);
  };
  for (const { name, child } of children) {
    child.on('exit', (code, signal) => {
      if (!exiting) {
        console.error(`[${name}] exited (${signal ?? code}); stopping the others`);
        exiting = true;
        process.exitCode = code ?? 1;
        stopAll('SIGTERM');
      }
    });
  }
  // A launcher that gives up while they start (its database failed) leaves none of them behind.
  process.on('exit', () => stopAll('SIGTERM'));
  for (const signal of ['SIGINT', 'SIGTERM']) {
    process.on(signal, () => {
      exiting = true;
      stopAll(signal);
    });
  }
  return Promise.all(
    children.map(({ child }) =>
      child.exitCode !== null || child.signalCode !== null
        ? undefined
        : new Promise((resolve) => child.once('exit', resolve)),
    ),
  );
}
