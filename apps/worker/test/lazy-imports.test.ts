import { fileURLToPath } from 'node:url';
import { runNode } from '@webpush/testing';
import t from 'tap';

// Packages that only some deployments use cost every process their memory when imported up front.
// The worker loads them when it needs them: the SDK and bullmq-otel when tracing starts, nodemailer
// with the first webhook-disabled e-mail (its sending is tested end to end in webhooks/breaker.test.ts).

const WATCHED = ['@opentelemetry/sdk-node', 'bullmq-otel', 'nodemailer'];

/**
 * Runs `code` (an ES module, from sources, as the worker runs in the tests) in a child process whose
 * resolve hook (module.register) reports every import of a WATCHED package; answers those imported.
 */
async function packagesLoaded(code: string): Promise<string[]> {
  const hooks = `const watched = new Set(${JSON.stringify(WATCHED)});
    export async function resolve(specifier, context, next) {
      if (watched.has(specifier)) process.stderr.write('LOADED ' + specifier + '\\n');
      return next(specifier, context);
    }`;
  const register = `import { register } from 'node:module';
    register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(hooks)}));`;
  const {
    code: exitCode,
    stdout,
    stderr,
  } = await runNode(
    [
      '--conditions=webpush-source',
      '--import',
      'tsx',
      '--import',
      `data:text/javascript,${encodeURIComponent(register)}`,
      '--input-type=module',
      '-e',
      `${code}\nconsole.log('done');`,
    ],
    { cwd: fileURLToPath(new URL('..', import.meta.url)) },
  );
  if (exitCode !== 0 || !stdout.includes('done')) throw new Error(`the child failed (${exitCode}): ${stderr}`);
  return [...new Set([...stderr.matchAll(/^LOADED (.+)$/gm)].map((match) => match[1] ?? ''))].sort();
}

t.test("the worker's modules, tracing off: none of the optional packages is loaded", async (t) => {
  const loaded = await packagesLoaded(`await import('./src/worker.ts');
    await import('./src/webhooks/disabled-notice.ts');
    const { startTracing } = await import('@webpush/tracing');
    await (await startTracing({ serviceName: 'webpush-test', enabled: false })).shutdown();`);
  t.same(loaded, []);
});

t.test('tracing on loads the SDK and bullmq-otel (and the hook sees an import of each package)', async (t) => {
  const loaded = await packagesLoaded(`const { startTracing } = await import('@webpush/tracing');
    await (await startTracing({ serviceName: 'webpush-test', enabled: true, spanProcessors: [] })).shutdown();
    await import('nodemailer');`);
  t.same(loaded, [...WATCHED].sort());
});
